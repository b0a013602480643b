// The assistant's page: sign in with a token, chat with streamed replies (AG-UI events over
// POST /agent/stream), see and change tasks, decide approvals, get reminders as they arrive
// (GET /events) with Snooze and Done, watch a page, and set quiet hours and the briefing
// (Settings). On opening it shows the chat's recent conversation (GET /history) and the
// deliveries the server still holds, so nothing that came while no page was open is missed.
// Text from the server is only ever set as textContent.
"use strict";

const TOKEN_KEY = "assistant.token";
const EXAMPLES = [
  "remind me in 10 minutes to stretch",
  "every weekday at 8:30 remind me to check the mail",
  "what's on my schedule?",
  "note: the spare key is under the blue pot",
];

const $ = (id) => document.getElementById(id);
const state = { token: null, busy: false, events: null, lastEvent: null, chat: "main", maxChars: 8000, historyLoaded: null };

// -- small helpers ------------------------------------------------------------------------------

function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "data") Object.assign(node.dataset, value);
    else node.setAttribute(key, value);
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

const ICONS = {
  bell: ["M6 8a6 6 0 0 1 12 0c0 7 3 9 3 9H3s3-2 3-9", "M10.3 21a1.94 1.94 0 0 0 3.4 0"],
  list: ["M8 6h13", "M8 12h13", "M8 18h13", "M3 6h.01", "M3 12h.01", "M3 18h.01"],
  info: ["M12 16v-4", "M12 8h.01", "M12 2a10 10 0 1 0 0 20a10 10 0 1 0 0-20"],
  shield: ["M12 22s8-4 8-10V5l-8-3-8 3v7c0 6 8 10 8 10"],
};

function icon(name) {
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("class", "icon");
  svg.setAttribute("aria-hidden", "true");
  for (const d of ICONS[name]) {
    const path = document.createElementNS("http://www.w3.org/2000/svg", "path");
    path.setAttribute("d", d);
    svg.append(path);
  }
  return svg;
}

function toast(text, bad = false) {
  const item = el("div", { class: bad ? "toast bad" : "toast", text });
  $("toasts").replaceChildren(item);  // the newest says what happened last; no pile-up
  setTimeout(() => item.remove(), bad ? 6000 : 3500);
}

class HttpError extends Error {
  constructor(status, detail) {
    super(detail);
    this.status = status;
  }
}

function headers(json = false) {
  const result = {};
  if (state.token) result.Authorization = `Bearer ${state.token}`;
  if (json) result["Content-Type"] = "application/json";
  return result;
}

async function api(method, path, body) {
  const response = await fetch(path, {
    method,
    headers: headers(body !== undefined),
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (response.status === 401 && path !== "/me") {
    signOut("Your token is no longer accepted; sign in again.");
    throw new HttpError(401, "signed out");
  }
  const data = await response.json().catch(() => null);
  if (!response.ok) throw new HttpError(response.status, describe(data, response.status));
  return data;
}

function describe(data, status) {
  const detail = data && data.detail;
  if (typeof detail === "string") return detail;
  if (Array.isArray(detail) && detail.length) return detail.map((d) => d.msg).join("; ");
  return `the server answered ${status}`;
}

function stored() {
  return sessionStorage.getItem(TOKEN_KEY) || localStorage.getItem(TOKEN_KEY);
}

// -- signing in ---------------------------------------------------------------------------------

// `assistant web` without API tokens prints the page's address with this start's token in
// its fragment (never sent to a server): keep it for the tab, and take it out of the address.
function fromAddress() {
  const found = new URLSearchParams(location.hash.slice(1)).get("token");
  if (!found) return;
  sessionStorage.setItem(TOKEN_KEY, found);
  localStorage.removeItem(TOKEN_KEY);
  history.replaceState(null, "", location.pathname + location.search);
}

async function start() {
  fromAddress();
  state.token = stored();
  try {
    const me = await api("GET", "/me");
    enter(me);
  } catch {
    state.token = null;
    showLogin();
  }
}

function showLogin(message) {
  $("app").hidden = true;
  $("login").hidden = false;
  $("login-error").hidden = !message;
  $("login-error").textContent = message || "";
  $("token").focus();
}

async function signIn(event) {
  event.preventDefault();
  const token = $("token").value.trim();
  if (!token) return;
  state.token = token;
  try {
    const me = await api("GET", "/me");
    (($("remember").checked) ? localStorage : sessionStorage).setItem(TOKEN_KEY, token);
    $("token").value = "";
    enter(me);
  } catch (error) {
    state.token = null;
    showLogin(error.status === 401 ? "That token is not accepted." : `Could not sign in: ${error.message}`);
  }
}

function signOut(message) {
  localStorage.removeItem(TOKEN_KEY);
  sessionStorage.removeItem(TOKEN_KEY);
  state.token = null;
  if (state.events) state.events.abort();
  state.events = null;
  showLogin(message);
}

async function enter(me) {
  $("login").hidden = true;
  $("app").hidden = false;
  showMe(me);
  $("logout").hidden = !state.token;
  state.maxChars = me.max_message_chars || state.maxChars;
  $("message").focus();
  // A message sent before the history arrives waits for it, so it is never wiped by it; and
  // the zone is settled before anything is shown in it.
  state.historyLoaded = settle(me);
  await state.historyLoaded;
  listen();
}

async function settle(me) {
  if (!me.timezone_chosen) await adoptBrowserZone();
  refresh();
  await loadHistory();
}

function showMe(me) {
  $("who").textContent = `${me.user_id} · ${me.timezone}`;
}

async function loadMe() {
  try {
    showMe(await api("GET", "/me"));
  } catch (error) {
    if (error.status !== 401) toast(`Could not load who you are: ${error.message}`, true);
  }
}

// A user who never chose a time zone gets the browser's (they can still change it with /tz).
async function adoptBrowserZone() {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (!zone) return;
  try {
    const chosen = await api("PUT", "/me/timezone", { timezone: zone });
    toast(`${chosen.notice} It is this browser's zone; change it with /tz ZONE.`);
  } catch (error) {
    if (error.status !== 401) toast(`Could not use this browser's time zone (${zone}): ${error.message}`, true);
  }
}

// What was said in this chat before the page opened (it was reloaded, or opened anew).
async function loadHistory() {
  let past = [];
  try {
    past = await api("GET", `/history?chat_id=${encodeURIComponent(state.chat)}`);
  } catch (error) {
    if (error.status !== 401) toast(`Could not load the conversation: ${error.message}`, true);
  }
  $("messages").replaceChildren();
  state.lastEvent = null;  // the deliveries the server holds are shown again among them
  for (const message of past) {
    const item = addMessage(message.role === "user" ? "mine" : "theirs", message.text);
    if (message.at) item.dataset.at = String(Date.parse(message.at));
  }
  if (!past.length) welcome();
}

// -- chat ----------------------------------------------------------------------------------------

function welcome() {
  const examples = el("div", { class: "examples" });
  for (const text of EXAMPLES) {
    examples.append(el("button", { type: "button", text, onclick: () => send(text) }));
  }
  $("messages").append(
    el("li", { class: "welcome" }, el("p", { text: "Ask me to remember things, schedule reminders and recurring tasks, or take notes." }), examples),
  );
}

function addMessage(kind, text = "") {
  const item = el("li", { class: `msg ${kind}`, text });
  $("messages").append(item);
  scrollDown();
  return item;
}

function scrollDown() {
  const list = $("messages");
  list.scrollTop = list.scrollHeight;
}

async function send(text) {
  text = text.trim();
  if (!text || state.busy) return;
  await state.historyLoaded;
  const length = [...text].length;  // characters, as the server counts them
  if (length > state.maxChars) {
    toast(`That message is ${length.toLocaleString("en")} characters long; the limit is ${state.maxChars.toLocaleString("en")}. Shorten it or send it in parts.`, true);
    return;
  }
  document.querySelector(".welcome")?.remove();
  addMessage("mine", text);
  $("message").value = "";
  grow();
  await runStream({ message: text, chat_id: state.chat });
}

async function resume(interruptId, approved) {
  await runStream({
    threadId: state.chat,
    runId: crypto.randomUUID ? crypto.randomUUID() : String(Date.now()),
    messages: [],
    resume: [{ interruptId, status: "resolved", payload: { approved } }],
  });
}

async function runStream(body) {
  setBusy(true);
  const turn = new Turn();
  try {
    const response = await fetch("/agent/stream", {
      method: "POST",
      headers: { ...headers(true), Accept: "text/event-stream" },
      body: JSON.stringify(body),
    });
    if (response.status === 401) return signOut("Your token is no longer accepted; sign in again.");
    if (!response.ok) {
      const data = await response.json().catch(() => null);
      throw new Error(describe(data, response.status));
    }
    for await (const event of sse(response)) turn.on(JSON.parse(event.data));
  } catch (error) {
    turn.fail(`Something went wrong: ${error.message}`);
  } finally {
    turn.close();
    setBusy(false);
    refresh();
  }
}

function setBusy(busy) {
  state.busy = busy;
  $("send").disabled = busy;
}

async function* sse(response) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, "\n");
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = { event: "message", data: "", id: null };
      const data = [];
      for (const line of block.split("\n")) {
        if (!line || line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (field === "data") data.push(value);
        else if (field === "event") event.event = value;
        else if (field === "id") event.id = value;
      }
      if (data.length) {
        event.data = data.join("\n");
        yield event;
      }
    }
  }
}

// One run of the agent as it appears in the chat: its messages, its tool calls, its end.
class Turn {
  constructor() {
    this.messages = new Map();
    this.tools = new Map();
    this.finished = false;
  }

  on(event) {
    switch (event.type) {
      case "CUSTOM":
        // The request waits for a busy model: say so until its first words come.
        if (event.name === "waiting") this.wait(event.value?.text);
        break;
      case "TEXT_MESSAGE_START":
        this.unwait();
        this.messages.set(event.messageId, addMessage("theirs streaming"));
        break;
      case "TEXT_MESSAGE_CONTENT": {
        const bubble = this.messages.get(event.messageId) || this.start(event.messageId);
        bubble.textContent += event.delta;
        scrollDown();
        break;
      }
      case "TEXT_MESSAGE_END":
        this.messages.get(event.messageId)?.classList.remove("streaming");
        break;
      case "TOOL_CALL_START": {
        // A call that waited for approval is the same call when its result comes.
        let chip = document.querySelector(`.tool[data-call="${CSS.escape(event.toolCallId)}"]`);
        if (!chip) {
          chip = el("li", { class: "tool", data: { call: event.toolCallId } }, el("span", { class: "state" }), el("span", { text: words(event.toolCallName) }));
          $("messages").append(chip);
          scrollDown();
        }
        this.tools.set(event.toolCallId, chip);
        break;
      }
      case "TOOL_CALL_RESULT": {
        const chip = this.tools.get(event.toolCallId);
        if (chip) {
          chip.classList.remove("waiting");
          chip.classList.add(event.metadata?.status === "ok" ? "done" : "failed");
          chip.title = event.content;
        }
        break;
      }
      case "RUN_FINISHED":
        this.unwait();
        this.finished = true;
        for (const interrupt of event.outcome?.interrupts || []) this.ask(interrupt);
        break;
      case "RUN_ERROR":
        this.unwait();
        this.finished = true;
        this.fail(event.message);
        break;
    }
  }

  wait(text) {
    if (!text) return;
    if (!this.notice) this.notice = addMessage("theirs notice");
    this.notice.textContent = text;
    scrollDown();
  }

  unwait() {
    this.notice?.remove();
    this.notice = null;
  }

  start(id) {
    const bubble = addMessage("theirs streaming");
    this.messages.set(id, bubble);
    return bubble;
  }

  ask(interrupt) {
    const chip = interrupt.toolCallId && this.tools.get(interrupt.toolCallId);
    if (chip) chip.classList.add("waiting");
    const card = approvalCard({
      id: interrupt.id,
      tool: interrupt.metadata?.tool || "tool",
      shown: interrupt.metadata?.shown || [],
      risk: interrupt.metadata?.risk || "medium",
      expires_text: interrupt.metadata?.expires_text,
    });
    $("messages").append(el("li", { class: "ask" }, card));
    scrollDown();
  }

  fail(text) {
    addMessage("theirs failed", text);
  }

  close() {
    this.unwait();
    for (const bubble of this.messages.values()) bubble.classList.remove("streaming");
  }
}

function words(name) {
  return name.replaceAll("_", " ");
}

function grow() {
  const box = $("message");
  box.style.height = "auto";
  box.style.height = `${Math.min(box.scrollHeight, 160)}px`;
}

// -- deliveries (reminders, task results) ---------------------------------------------------------

async function listen() {
  if (state.events) return;
  const controller = new AbortController();
  state.events = controller;
  let wait = 1000;
  while (state.events === controller) {
    try {
      // First what the server still holds (what came while no page was open), then after
      // the last one shown.
      const last = state.lastEvent;
      const response = await fetch(last ? "/events" : "/events?recent=true", {
        headers: { ...headers(), Accept: "text/event-stream", ...(last ? { "Last-Event-ID": last } : {}) },
        signal: controller.signal,
      });
      if (response.status === 401) return signOut("Your token is no longer accepted; sign in again.");
      wait = 1000;
      for await (const event of sse(response)) {
        if (event.event !== "delivery") continue;
        state.lastEvent = event.id;
        delivered(JSON.parse(event.data));
      }
    } catch (error) {
      if (controller.signal.aborted) return;
    }
    await new Promise((resolve) => setTimeout(resolve, wait));
    wait = Math.min(wait * 2, 30000);
  }
}

// Every delivery can come again later (Snooze 10 min / 1 h / tomorrow morning): a reminder is
// put off itself, any other message is shown again, marked. A reminder also has Done (one
// that repeats until done stops); a notice about a run of unknown outcome has Run again.
const SNOOZES = [["Snooze 10 min", "10m"], ["Snooze 1 h", "1h"], ["Tomorrow morning", "morning"]];

function delivered(item) {
  document.querySelector(".welcome")?.remove();
  const [name, label] = { reminder: ["bell", "Reminder"], result: ["list", "Task result"], notice: ["info", "Notice"] }[item.kind] || ["info", "Message"];
  const bubble = el("li", { class: "msg delivery", data: { item: item.id } }, el("span", { class: "label" }, icon(name), label), el("span", { text: item.text }));
  const actions = el("div", { class: "actions" });
  const act = (text, path, body, cls = "small") => el("button", {
    type: "button", class: cls, text,
    onclick: async (event) => {
      for (const button of actions.querySelectorAll("button")) button.disabled = true;
      try {
        const done = await api("POST", path, body);
        toast(done.notice);
        actions.replaceChildren(el("span", { class: "muted small", text: done.notice }));
        refresh();
      } catch (error) {
        for (const button of actions.querySelectorAll("button")) button.disabled = false;
        toast(error.message, true);
      }
    },
  });
  const task = encodeURIComponent(item.task_id);
  for (const [text, delay] of SNOOZES) {
    actions.append(item.kind === "reminder"
      ? act(text, `/tasks/${task}/snooze`, { delay })
      : act(text, `/inbox/${encodeURIComponent(item.id)}/later`, { delay }));
  }
  if (item.kind === "reminder") actions.append(act("Done", `/tasks/${task}/done`, undefined, "small done"));
  if (item.run_again) actions.append(act("Run again", `/tasks/${task}/run`));
  bubble.append(actions);
  placeInTime(bubble, Date.parse(item.delivered_at));
  scrollDown();
  refresh();
}

// A delivery goes after what was said before it: among the conversation shown from history,
// by time; at the end when it is new.
function placeInTime(bubble, at) {
  bubble.dataset.at = String(at);
  const later = [...$("messages").querySelectorAll(":scope > [data-at]")].find((item) => Number(item.dataset.at) > at);
  if (later) later.before(bubble);
  else $("messages").append(bubble);
}

// -- tasks and approvals ---------------------------------------------------------------------------

let refreshing = null;
let refreshAgain = false;

function refresh() {
  // The zone too: "/tz" in the chat changes it, and every time on the page is said in it.
  // Asked while one runs, another follows it: what that one read may be from before the change.
  if (refreshing) {
    refreshAgain = true;
    return refreshing;
  }
  refreshing = Promise.all([loadTasks(), loadApprovals(), loadMe(), loadSettings()]).finally(() => {
    refreshing = null;
    if (refreshAgain) {
      refreshAgain = false;
      refresh();
    }
  });
  return refreshing;
}

async function loadTasks() {
  try {
    const tasks = await api("GET", "/tasks?limit=500");  // a person's live tasks: 500 at most
    const list = $("task-list");
    list.replaceChildren(...tasks.map(taskCard));
    $("no-tasks").hidden = tasks.length > 0;
    count("tasks-count", tasks.length);
    // A history that was open stays open when the list is drawn again (after a run, say).
    const shown = new Set(tasks.map((task) => task.id));
    for (const id of [...openRuns]) if (!shown.has(id)) openRuns.delete(id);
    for (const task of tasks) if (openRuns.has(task.id)) showRuns(task);
  } catch (error) {
    if (error.status !== 401) toast(`Could not load tasks: ${error.message}`, true);
  }
}

function count(id, value) {
  $(id).hidden = value === 0;
  $(id).textContent = String(value);
}

function taskCard(task) {
  const active = task.status === "active";
  const buttons = el("div", { class: "buttons" });
  const act = (verb, label, cls = "small") => el("button", {
    type: "button", class: cls, text: label, data: { action: verb, task: task.id },
    onclick: (event) => taskAction(event.target, task, verb),
  });
  buttons.append(
    active ? act("pause", "Pause") : act("resume", "Resume"),
    act("run", "Run now"),
    act("cancel", "Cancel", "small danger"),
    el("button", { type: "button", class: "small ghost", text: "History", onclick: (event) => toggleRuns(event.target, task) }),
  );
  return el("li", { class: "card task", data: { task: task.id } },
    el("div", { class: "head" },
      el("span", { class: "what", text: task.description }),
      el("span", { class: `badge ${task.status}`, text: active ? words(task.type) : task.status })),
    el("div", { class: "line", text: task.schedule }),
    el("div", { class: "next", text: active ? `Next: ${task.next_run_text}` : (task.status_reason || task.status) }),
    el("div", { class: "id", text: task.id }),
    buttons,
  );
}

async function taskAction(button, task, verb) {
  if (verb === "cancel" && !button.classList.contains("armed")) {
    button.classList.add("armed");
    button.textContent = "Really cancel?";
    setTimeout(() => { button.classList.remove("armed"); button.textContent = "Cancel"; }, 4000);
    return;
  }
  button.disabled = true;
  try {
    const done = await api("POST", `/tasks/${encodeURIComponent(task.id)}/${verb}`);
    toast(done.notice);
  } catch (error) {
    toast(error.message, true);
  } finally {
    refresh();
  }
}

const openRuns = new Set();  // the tasks whose history is shown

async function toggleRuns(button, task) {
  const open = button.closest(".card").querySelector(".runs");
  if (open) {
    openRuns.delete(task.id);
    return open.remove();
  }
  openRuns.add(task.id);
  await showRuns(task);
}

async function showRuns(task) {
  try {
    const runs = await api("GET", `/tasks/${encodeURIComponent(task.id)}/runs`);
    const list = el("ul", { class: "runs" });
    if (!runs.length) list.append(el("li", { class: "muted", text: "It has not run yet." }));
    for (const run of runs) {
      // The server says the time in the user's zone, with the zone, as everywhere else.
      const when = run.scheduled_for_text;
      const detail = run.error || run.result || "";
      list.append(el("li", {},
        el("span", { text: when }),
        el("span", { class: `status ${run.status}`, text: run.status }),
        el("span", { class: "muted", text: detail.length > 80 ? `${detail.slice(0, 79)}…` : detail })));
    }
    // The list may have been drawn again while the runs were on their way: the card shown now.
    const card = $("task-list").querySelector(`.card.task[data-task="${CSS.escape(task.id)}"]`);
    if (!card || !openRuns.has(task.id)) return;
    card.querySelector(".runs")?.remove();
    card.append(list);
  } catch (error) {
    toast(error.message, true);
  }
}

async function loadApprovals() {
  try {
    const pending = await api("GET", "/approvals?limit=500");
    $("approval-list").replaceChildren(...pending.map((request) => el("li", {}, approvalCard(request))));
    $("no-approvals").hidden = pending.length > 0;
    count("approvals-count", pending.length);
  } catch (error) {
    if (error.status !== 401) toast(`Could not load approvals: ${error.message}`, true);
  }
}

// Every argument is shown in full: a long one opens on a click, never cut (what leaves is seen).
const LONG_VALUE = 240;
function fullValue(value) {
  if (value.length <= LONG_VALUE) return document.createTextNode(value);
  return el("details", { class: "long" },
    el("summary", { text: `${value.slice(0, LONG_VALUE)}… (${value.length} characters: show all)` }),
    el("div", { class: "all", text: value }));
}

function approvalCard(request) {
  const args = el("dl", { class: "args" });
  for (const { name, value } of request.shown || []) {
    args.append(el("dt", { text: name }), el("dd", {}, fullValue(value)));
  }
  const buttons = el("div", { class: "buttons" });
  const decide = (approved) => async () => {
    if (state.busy) return;
    const outcome = approved ? "✓ Approved" : "✕ Denied";
    for (const card of document.querySelectorAll(`[data-request="${CSS.escape(request.id)}"]`)) {
      card.querySelector(".buttons")?.replaceWith(el("div", { class: "decided", text: outcome }));
    }
    showTab("chat");
    await resume(request.id, approved);
  };
  buttons.append(
    el("button", { type: "button", class: "small approve", text: "Approve", onclick: decide(true) }),
    el("button", { type: "button", class: "small", text: "Deny", onclick: decide(false) }),
  );
  // The server says the time in the user's zone, as everywhere else on the page.
  const expires = request.expires_text ? `Expires ${request.expires_text}` : "";
  return el("div", { class: "card approval", data: { request: request.id } },
    el("div", { class: "caption" }, icon("shield"), "Needs your approval"),
    el("div", { class: "head" },
      el("span", { class: "what", text: words(request.tool) }),
      el("span", { class: `badge risk-${request.risk}`, text: `${request.risk} risk` })),
    request.reason ? el("div", { class: "line why", text: `Why I ask: ${request.reason}.` }) : null,
    args,
    expires ? el("div", { class: "line", text: expires }) : null,
    buttons,
  );
}

// -- watch a page, quiet hours, the morning briefing -------------------------------------------------

async function loadSettings() {
  try {
    const [quiet, briefing] = await Promise.all([api("GET", "/me/quiet-hours"), api("GET", "/me/briefing")]);
    showQuiet(quiet);
    showBriefing(briefing);
  } catch (error) {
    if (error.status !== 401) toast(`Could not load your settings: ${error.message}`, true);
  }
}

function showQuiet(quiet) {
  const held = quiet.held ? ` ${quiet.held} held for now.` : "";
  $("quiet-state").textContent = quiet.hours
    ? `Quiet from ${quiet.hours.replace("-", " to ")} (${quiet.timezone}): messages wait and arrive together at the end; urgent reminders still come.${held}`
    : "No quiet hours: messages arrive when they are due.";
  if (quiet.hours) [$("quiet-from").value, $("quiet-to").value] = quiet.hours.split("-");
  $("quiet-off").disabled = !quiet.hours;
}

function showBriefing(briefing) {
  $("briefing-state").textContent = briefing.task
    ? `${briefing.task.schedule}; next ${briefing.task.next_run_text}.`
    : "No briefing. It lists the day's tasks, what ran overnight (failures first), monitors that changed and notes tagged for the day.";
  $("briefing-off").disabled = !briefing.task;
}

async function settled(request) {
  try {
    const done = await request;
    if (done.notice) toast(done.notice);
  } catch (error) {
    toast(error.message, true);
  } finally {
    refresh();
  }
}

function wireSettings() {
  $("watch-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const body = { url: $("watch-url").value.trim(), every: $("watch-every").value };
    const selector = $("watch-selector").value.trim();
    const condition = $("watch-condition").value.trim();
    if (selector) body.selector = selector;
    if (condition) body.condition = condition;
    settled(api("POST", "/monitors", body).then((done) => { $("watch-form").reset(); return done; }));
  });
  $("quiet-form").addEventListener("submit", (event) => {
    event.preventDefault();
    settled(api("PUT", "/me/quiet-hours", { hours: `${$("quiet-from").value}-${$("quiet-to").value}` }));
  });
  $("quiet-off").addEventListener("click", () => settled(api("DELETE", "/me/quiet-hours")));
  $("briefing-form").addEventListener("submit", (event) => {
    event.preventDefault();
    settled(api("PUT", "/me/briefing", { at: $("briefing-at").value }));
  });
  $("briefing-off").addEventListener("click", () => settled(api("DELETE", "/me/briefing")));
}

// -- calendar --------------------------------------------------------------------------------------

const importing = { text: null };

async function newFeed() {
  try {
    const feed = await api("POST", "/calendar/feed");
    $("feed-url").value = feed.url;
    $("feed-url").hidden = false;
    $("feed-note").textContent = feed.note;
    $("feed-note").hidden = false;
    $("feed-url").select();
  } catch (error) {
    if (error.status !== 401) toast(`Could not make a feed: ${error.message}`, true);
  }
}

async function feedOff() {
  try {
    const answer = await api("DELETE", "/calendar/feed");
    $("feed-url").hidden = true;
    $("feed-note").hidden = true;
    toast(answer.revoked ? "The feed is off: its address answers nothing any more." : "You have no feed.");
  } catch (error) {
    if (error.status !== 401) toast(`Could not turn the feed off: ${error.message}`, true);
  }
}

async function postCalendar(text, confirm) {
  // The file itself is the body: a calendar is larger than a message (the server allows it).
  const response = await fetch(`/calendar/import?confirm=${confirm}&chat_id=${encodeURIComponent(state.chat)}`, {
    method: "POST",
    headers: { ...headers(), "Content-Type": "text/calendar" },
    body: text,
  });
  const data = await response.json().catch(() => null);
  if (!response.ok) throw new HttpError(response.status, describe(data, response.status));
  return data;
}

async function previewFile() {
  const file = $("ics-file").files[0];
  $("ics-import").hidden = true;
  if (!file) return;
  try {
    importing.text = await file.text();
    const plan = await postCalendar(importing.text, false);
    $("ics-preview").textContent = plan.preview;
    $("ics-preview").hidden = false;
    $("ics-import").textContent = `Import ${plan.items.length}`;
    $("ics-import").hidden = plan.items.length === 0;
  } catch (error) {
    $("ics-preview").textContent = error.message;
    $("ics-preview").hidden = false;
  }
}

async function importFile() {
  if (importing.text === null) return;
  $("ics-import").hidden = true;
  try {
    const made = await postCalendar(importing.text, true);
    const said = `Made ${made.created.length} reminder${made.created.length === 1 ? "" : "s"}.`;
    toast(made.error ? `${said} Then: ${made.error}` : said, Boolean(made.error));
    $("ics-preview").textContent = said;
    $("ics-file").value = "";
    importing.text = null;
    await loadTasks();
  } catch (error) {
    toast(`Could not import: ${error.message}`, true);
  }
}

// -- layout ------------------------------------------------------------------------------------------

function showTab(name) {
  document.querySelector(".panes").dataset.showing = name;
  for (const tab of document.querySelectorAll(".tab")) {
    tab.setAttribute("aria-selected", String(tab.dataset.show === name));
  }
}

function wire() {
  $("login-form").addEventListener("submit", signIn);
  $("logout").addEventListener("click", () => signOut());
  $("refresh").addEventListener("click", () => refresh());
  $("composer").addEventListener("submit", (event) => {
    event.preventDefault();
    send($("message").value);
  });
  $("message").addEventListener("input", grow);
  $("message").addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      send($("message").value);
    }
  });
  for (const tab of document.querySelectorAll(".tab")) {
    tab.addEventListener("click", () => showTab(tab.dataset.show));
  }
  wireSettings();
  $("feed-new").addEventListener("click", newFeed);
  $("feed-off").addEventListener("click", feedOff);
  $("ics-file").addEventListener("change", previewFile);
  $("ics-import").addEventListener("click", importFile);
}

wire();
start();
