"""Places the planner knows the time zone of: "what time is it in Tokyo"."""

from __future__ import annotations

from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from agent.planner.text import squash
from common import LazyPattern

_CITY_ZONES = {
    "tokyo": "Asia/Tokyo",
    "japan": "Asia/Tokyo",
    "london": "Europe/London",
    "uk": "Europe/London",
    "paris": "Europe/Paris",
    "berlin": "Europe/Berlin",
    "germany": "Europe/Berlin",
    "madrid": "Europe/Madrid",
    "rome": "Europe/Rome",
    "amsterdam": "Europe/Amsterdam",
    "vienna": "Europe/Vienna",
    "zurich": "Europe/Zurich",
    "stockholm": "Europe/Stockholm",
    "moscow": "Europe/Moscow",
    "kyiv": "Europe/Kyiv",
    "istanbul": "Europe/Istanbul",
    "dubai": "Asia/Dubai",
    "mumbai": "Asia/Kolkata",
    "delhi": "Asia/Kolkata",
    "new delhi": "Asia/Kolkata",
    "india": "Asia/Kolkata",
    "singapore": "Asia/Singapore",
    "hong kong": "Asia/Hong_Kong",
    "beijing": "Asia/Shanghai",
    "shanghai": "Asia/Shanghai",
    "china": "Asia/Shanghai",
    "seoul": "Asia/Seoul",
    "sydney": "Australia/Sydney",
    "melbourne": "Australia/Melbourne",
    "auckland": "Pacific/Auckland",
    "new york": "America/New_York",
    "nyc": "America/New_York",
    "boston": "America/New_York",
    "toronto": "America/Toronto",
    "chicago": "America/Chicago",
    "denver": "America/Denver",
    "los angeles": "America/Los_Angeles",
    "la": "America/Los_Angeles",
    "san francisco": "America/Los_Angeles",
    "seattle": "America/Los_Angeles",
    "mexico city": "America/Mexico_City",
    "sao paulo": "America/Sao_Paulo",
    "são paulo": "America/Sao_Paulo",
    "buenos aires": "America/Argentina/Buenos_Aires",
    "cairo": "Africa/Cairo",
    "johannesburg": "Africa/Johannesburg",
    "lagos": "Africa/Lagos",
    "utc": "UTC",
    "gmt": "UTC",
}


_ZONE_NAME = LazyPattern(r"[A-Za-z_+\-/0-9]{3,40}")


def zone_for(place: str) -> str | None:
    """Return the IANA zone for a city, country or zone name the planner knows, else ``None``."""
    key = squash(place.strip(" .?!,")).lower().removeprefix("the ")
    if key in _CITY_ZONES:
        return _CITY_ZONES[key]
    name = place.strip(" .?!,")
    if "/" not in key or not _ZONE_NAME.fullmatch(name):
        return None
    try:
        return ZoneInfo(name).key
    except (ZoneInfoNotFoundError, ValueError):
        return None
