"""The one settings table: every setting once, with its type, default, env twin and help.

The CLI's options, the config file's keys and values, `sleuth config show`, the docs site's
command and settings reference and the HTTP request models are all generated from this table or
checked against it (a test holds the `Settings` and `ResearchRequest` dataclasses to the same
names and defaults).

A setting's `kind` says how its value is written in a flag, a file, a variable or a JSON field:

    flag      true/false (`--no-cache`)          text     free text
    int       a whole number in [low, high]      float    a number in [low, high]
    choice    one of `choices`                   list     comma-separated items (repeatable)
    path      a file path                        duration  90s, 500ms, 10min, 1h
    since     a date (2024-01-31, 2024) or an age back from today (30d, 2w, 6mo, 1y)
    rounds    `--deep` alone is 2 rounds; `--deep=N` up to N
    lang      a language code: ISO 639-1, optionally with script and region (de, en-GB, zh-Hant)
    money     an amount in US dollars: 0.50 or $0.50 (at least `low`)

`target` says who consumes it: `engine` (how a run is assembled: backends, reading, models),
`run` (what one run does), `session` (how it is saved), `output` (how an interface shows it) or
`server` (how `sleuth serve` / `sleuth ui` serve and face the network: address, processes,
admission, the result cache, the access password, allowed hosts, proxies — `ServerConfig` is
built from these).

Every face resolves them the same way (`sleuth.settings.resolve`): built-in defaults < config
file < profile < environment < explicit values (flags the user typed, keyword arguments).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal, get_args

from ..limits import DEEP_ROUNDS
from ..types import ApiFormat, AuthorityMode, BrowserMode, Depth, OutputKind

Kind = Literal[
    "flag",
    "text",
    "int",
    "float",
    "choice",
    "list",
    "path",
    "duration",
    "since",
    "rounds",
    "lang",
    "money",
]
Target = Literal["engine", "run", "session", "output", "server"]

# Closed choices, named once and used by the table, the dataclasses and the API models.
BROWSER_MODES: tuple[str, ...] = get_args(BrowserMode)
SOURCE_AUTHORITY: tuple[str, ...] = get_args(AuthorityMode)
API_FORMATS: tuple[str, ...] = get_args(ApiFormat)
OUTPUTS: tuple[str, ...] = get_args(OutputKind)
DEPTHS: tuple[str, ...] = get_args(Depth)


@dataclass(frozen=True, slots=True)
class Setting:
    name: str
    kind: Kind
    default: Any
    help: str
    target: Target
    env: bool = True  # has a SLEUTH_<NAME> twin; output paths never do
    choices: tuple[str, ...] = ()
    low: float | None = None
    high: float | None = None
    metavar: str | None = None
    short: str | None = None  # e.g. -v
    secret: bool = False  # never shown in full (config show, the web UI)
    cli: bool = True  # has a command-line flag (a password has none: ps and history show flags)

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def env_name(self) -> str | None:
        return f"SLEUTH_{self.name.upper()}" if self.env else None

    @property
    def config_key(self) -> str:
        return self.name

    @property
    def flag_text(self) -> str | None:
        """The flag as documentation shows it, or None when the setting has no flag."""
        return self.flag if self.cli else None


def _s(name: str, kind: Kind, default: Any, help: str, target: Target, **extra: Any) -> Setting:
    return Setting(name, kind, default, help, target, **extra)


_TABLE = (
    # ------------------------------------------------------------------ search
    _s(
        "search",
        "text",
        "duckduckgo",
        "Search backend: a name, or multi:a,b,c.",
        "engine",
        metavar="SPEC",
    ),
    _s(
        "search_fallback",
        "text",
        None,
        "Backend to retry a round through when search finds nothing: wikipedia, or "
        "news,wikipedia with --since; 'none' disables.",
        "engine",
        metavar="SPEC",
    ),
    _s(
        "search_lang",
        "lang",
        None,
        "Search in this language: the planner writes its queries in it and each backend gets "
        "it as its language/region parameter (ISO 639-1 code, optionally with script and "
        "region: de, en-GB, zh-Hant). Pages in other languages are still read and cited.",
        "run",
        metavar="LANG",
    ),
    _s(
        "include",
        "list",
        (),
        "Local files or folders to use as sources, read for this run only (PDF, DOCX, PPTX, "
        "XLSX, CSV, HTML, Markdown, text, EPUB).",
        "engine",
        metavar="PATH[,PATH]",
    ),
    _s(
        "kb",
        "text",
        "default",
        "Knowledge base that --search=kb and the kb commands use (kb:NAME also picks one).",
        "engine",
        metavar="NAME",
    ),
    _s(
        "kb_hybrid",
        "flag",
        False,
        "Rank knowledge-base passages by BM25 fused with local embeddings (needs the embed "
        "extra and files added with --embed).",
        "engine",
    ),
    # ------------------------------------------------------------------ reading
    _s(
        "no_cache",
        "flag",
        False,
        "Reuse nothing cached: read every page afresh (the page cache is neither read nor "
        "written). The API's no_cache means the same: no answer from the result cache, no page "
        "from the page cache.",
        "engine",
    ),
    _s(
        "cache_ttl",
        "duration",
        3600.0,
        "How long a read page is served from the page cache (e.g. 30min, 1h, 2d).",
        "engine",
        metavar="DURATION",
    ),
    _s(
        "cache_dir",
        "path",
        None,
        "Folder of the page cache (cache.db; default: SLEUTH_HOME).",
        "engine",
        metavar="DIR",
    ),
    _s(
        "browser",
        "choice",
        "auto",
        "Read pages in headless Chromium: when plain HTTP yields too little text (auto), always, "
        "or never. Needs the browser extra.",
        "engine",
        choices=BROWSER_MODES,
    ),
    _s(
        "browser_executable",
        "path",
        None,
        "Chromium to launch (default: chromium on PATH).",
        "engine",
        metavar="PATH",
    ),
    _s(
        "browser_cdp_endpoint",
        "text",
        None,
        "Use a running Chromium over CDP instead of launching one.",
        "engine",
        metavar="URL",
    ),
    _s("pdf_max_pages", "int", 50, "Pages of a PDF to read.", "engine", low=1, high=2000),
    _s(
        "since",
        "since",
        None,
        "Drop pages published before this (2024-01-31, 2024, or 30d, 2w, 6mo, 1y); undated pages "
        "are kept.",
        "run",
        metavar="DATE|AGE",
    ),
    _s(
        "source_authority",
        "choice",
        "prefer",
        "Order fetch slots by domain authority; strict also drops content farms.",
        "run",
        choices=SOURCE_AUTHORITY,
    ),
    _s(
        "dedupe_threshold",
        "float",
        0.9,
        "Word 5-gram Jaccard similarity at which a page counts as a copy of one already kept.",
        "run",
        low=0.01,
        high=1.0,
    ),
    _s("no_dedupe", "flag", False, "Keep near-duplicate pages.", "run"),
    _s(
        "allow_domain",
        "list",
        (),
        "Only read pages from these domains (and their subdomains).",
        "run",
        metavar="DOMAIN[,DOMAIN]",
    ),
    _s(
        "deny_domain",
        "list",
        (),
        "Never read pages from these domains (and their subdomains).",
        "run",
        metavar="DOMAIN[,DOMAIN]",
    ),
    _s("concurrency", "int", 10, "Pages read at once.", "run", low=1, high=64),
    # ------------------------------------------------------------------ model
    _s(
        "base_url",
        "text",
        None,
        "OpenAI-compatible, Anthropic or Gemini endpoint (Ollama, vLLM, llama.cpp, ...); for "
        "the azure provider, the Azure OpenAI resource (https://NAME.openai.azure.com).",
        "engine",
    ),
    _s("api_key", "text", None, "LLM API key (several: key1,key2).", "engine", secret=True),
    _s("model", "text", None, "Model that writes the answer.", "engine"),
    _s(
        "api_format",
        "choice",
        "auto",
        "LLM provider: its wire format and SDK (google: Gemini through google-genai, the "
        "sleuth[google] extra; azure: Azure OpenAI, whose models are deployment names).",
        "engine",
        choices=API_FORMATS,
    ),
    _s(
        "azure_api_version",
        "text",
        None,
        "Azure OpenAI API version (default 2024-10-21, or OPENAI_API_VERSION).",
        "engine",
        metavar="VERSION",
    ),
    _s(
        "azure_ad_token",
        "text",
        None,
        "A Microsoft Entra ID bearer token for Azure OpenAI instead of an API key (or "
        "AZURE_OPENAI_AD_TOKEN); tokens expire, so set a fresh one per process.",
        "engine",
        secret=True,
        cli=False,
    ),
    _s("plan_model", "text", None, "Model for planning and triage.", "engine"),
    _s("critic_model", "text", None, "Model for the deep critic.", "engine"),
    _s(
        "context_tokens",
        "int",
        16000,
        "The model's context size; passages are trimmed by rank to fit.",
        "engine",
        low=2000,
    ),
    _s(
        "max_cost",
        "money",
        None,
        "Stop before the next model call once this much (US dollars: 0.50 or $0.50) is spent; "
        "exit 2.",
        "engine",
        low=0.0,
        metavar="USD",
    ),
    _s(
        "require_llm",
        "flag",
        False,
        "Fail when the configured model cannot write, instead of answering with the extractive "
        "writer from the sources already gathered.",
        "run",
    ),
    # ------------------------------------------------------------------ the run
    _s(
        "deep",
        "rounds",
        None,
        "Deep research: plan sub-queries, then up to N critic rounds "
        f"(bare --deep: {DEEP_ROUNDS}).",
        "run",
        low=0,
        high=10,
        metavar="[=N]",
    ),
    _s(
        "output",
        "choice",
        None,
        "An answer (quick default) or a sectioned report (deep default).",
        "run",
        choices=OUTPUTS,
    ),
    _s(
        "schema",
        "path",
        None,
        "Fill this JSON Schema from the sources (needs an LLM); the result has `data` instead of "
        "`answer`.",
        "run",
        metavar="FILE",
    ),
    _s("tldr", "flag", False, "Start with a cited one-paragraph summary.", "run"),
    _s(
        "images",
        "flag",
        False,
        "Show images of the cited pages (with their alt text or caption) beside the sentences "
        "they illustrate; each is downloaded through the network guard, checked and kept.",
        "run",
    ),
    _s(
        "language",
        "text",
        None,
        "Write the answer in this language (needs an LLM).",
        "run",
        metavar="LANG",
    ),
    _s(
        "max_sources",
        "int",
        None,
        "Most sources given to the writer (default 6, deep 15).",
        "run",
        low=1,
        high=50,
    ),
    _s(
        "max_runtime",
        "duration",
        None,
        "Stop the whole run after this long (e.g. 90s, 10min; default 45s quick, 150s deep); "
        "exit 5.",
        "run",
        metavar="DURATION",
    ),
    _s(
        "cite_min_recall",
        "float",
        0.4,
        "Share of a sentence's content words its cited source must contain.",
        "run",
        low=0.0,
        high=1.0,
    ),
    _s("no_verify_cites", "flag", False, "Skip the lexical citation check.", "run"),
    # ------------------------------------------------------------------ saving
    _s("no_sessions", "flag", False, "Do not save this run as a session.", "session"),
    _s("tag", "list", (), "Label the saved session.", "session", metavar="TAG[,TAG]"),
    _s(
        "sessions_dir",
        "path",
        None,
        "Folder of the saved sessions (sessions.db; default: SLEUTH_HOME).",
        "engine",
        metavar="DIR",
    ),
    _s(
        "config",
        "path",
        None,
        "The config file to read (default: SLEUTH_HOME/config.toml); one named here must "
        "exist. Not a key of the file itself.",
        "engine",
        metavar="FILE",
    ),
    # ------------------------------------------------------------------ output
    _s(
        "json",
        "flag",
        False,
        "Print JSON instead of text (for ask: the result shape in docs/getting-started.md,"
        " 'The result').",
        "output",
    ),
    _s("out", "path", None, "Also write the final output to this file.", "output", env=False),
    _s("verbose", "flag", False, "Print every run event on stderr.", "output", short="-v"),
    _s("no_cost", "flag", False, "Do not print the cost summary.", "output"),
    _s("strict_cites", "flag", False, "Exit 4 when any citation is unsupported.", "output"),
    _s(
        "require_answer",
        "flag",
        False,
        "Exit 3 when the sources do not answer the question (confidence low); the answer "
        "saying so is still printed.",
        "output",
    ),
    # ------------------------------------------------------------------ server
    # `sleuth serve` and `sleuth ui` (ServerConfig). Server rows go in this block, at the end.
    _s("host", "text", "127.0.0.1", "Address to listen on.", "server", metavar="HOST"),
    _s("port", "int", 8000, "Port to listen on.", "server", low=0, high=65535),
    _s(
        "workers",
        "int",
        1,
        "Server processes (each has its own run slots).",
        "server",
        low=1,
        high=64,
    ),
    _s(
        "run_slots",
        "int",
        4,
        "Runs at once per server process; more get 503 SERVER_BUSY with Retry-After.",
        "server",
        low=1,
        high=1024,
    ),
    _s(
        "org_runs",
        "int",
        2,
        "Runs at once per organization (0: no limit); more get 429.",
        "server",
        low=0,
        high=1_000_000,
    ),
    _s(
        "org_rate",
        "int",
        0,
        "Requests a minute per organization (0: no limit); more get 429.",
        "server",
        low=0,
        high=1_000_000,
    ),
    _s(
        "result_cache_ttl",
        "duration",
        600.0,
        "Identical requests from one organization within this long are answered from the "
        "result cache (not metered).",
        "server",
        metavar="DURATION",
    ),
    _s(
        "access_password",
        "text",
        None,
        "A shared password: the web UI asks for it, and the SSE API and MCP accept it as a "
        "bearer token besides API keys (environment or config file only, never a flag).",
        "server",
        secret=True,
        cli=False,
    ),
    # ------------------------------------------------------------------ server: the HTTP edge
    _s(
        "allowed_hosts",
        "list",
        (),
        "Host names the server answers to besides loopback (localhost, 127.0.0.1, ::1): the "
        "names people and proxies use to reach it. Any other Host header is refused (DNS "
        "rebinding).",
        "server",
        metavar="HOST[,HOST]",
    ),
    _s(
        "trusted_proxies",
        "list",
        (),
        "Addresses of the TLS proxies in front of the server: only from them are "
        "X-Forwarded-Proto and X-Forwarded-For believed (the login cookie is then Secure, and "
        "login throttling counts the real client).",
        "server",
        metavar="ADDRESS[,ADDRESS]",
    ),
    _s(
        "allowed_models",
        "list",
        (),
        "Models a request may name besides the server's own (the web-app dialect's taskModel "
        "and thinkingModel); by default a request runs on the server's configured model only.",
        "server",
        metavar="MODEL[,MODEL]",
    ),
    _s(
        "allowed_providers",
        "list",
        (),
        "Providers a request may pick (the web-app dialect's provider: openai, anthropic, "
        "google, azure, deepseek, openrouter, mistral, xai, ollama), each with the server's key "
        "for it; by "
        "default none: a caller never spends the operator's other keys.",
        "server",
        metavar="NAME[,NAME]",
    ),
    _s(
        "secret_key",
        "text",
        None,
        "The server's secret key: seals the model API keys operators give organizations "
        "(`sleuth keys org-model set`) in the store. Fernet keys, comma-separated: the first "
        "seals, any opens (rotation: new,old, then `sleuth keys org-model reseal`). Every "
        "process of one store needs the same (environment or config file only, never a flag).",
        "server",
        secret=True,
        cli=False,
    ),
    _s(
        "metrics_token",
        "text",
        None,
        "Bearer token a Prometheus scraper sends to read /metrics on a server that is not "
        "open (the access password works too).",
        "server",
        secret=True,
    ),
)

SETTINGS: Mapping[str, Setting] = MappingProxyType({s.name: s for s in _TABLE})

# Read from the environment only (no flag): where Sleuth keeps its files, and intranet research.
ENV_ONLY: Mapping[str, str] = MappingProxyType(
    {
        "SLEUTH_HOME": "Where sessions, the page cache and config.toml live (default ~/.sleuth) "
        "unless sessions_dir, cache_dir or config name other places.",
        "SLEUTH_ALLOW_PRIVATE_NETWORK": "1 to research an intranet (metadata addresses stay "
        "refused).",
        "SLEUTH_PROFILE": "The settings profile to apply (like --profile).",
        "SLEUTH_DATABASE_URL": "postgresql://user:password@host:port/db: keep sessions, the "
        "service's keys, quotas and caches, and the page cache in PostgreSQL instead of "
        "SLEUTH_HOME's SQLite files (many replicas on one database).",
    }
)

# Variables Sleuth once read under another name: still read, with a one-line notice naming the
# new one (the new name wins when both are set). Add a line here whenever a twin is renamed.
RENAMED_ENV: Mapping[str, str] = MappingProxyType({"SLEUTH_TAGS": "SLEUTH_TAG"})

# Variables Sleuth once read and no longer does (options only one command has are never taken
# from the environment): a notice says what to do instead, so none is ignored in silence.
RETIRED_ENV: Mapping[str, str] = MappingProxyType(
    {
        "SLEUTH_OUT": "give --out on the command line",
        "SLEUTH_DEPTH": "give --depth to batch or eval, or set SLEUTH_DEEP=2",
        "SLEUTH_LIMIT": "give --limit on the command line",
        "SLEUTH_FORMAT": "give --format to export",
        "SLEUTH_NO_BROWSER": "give --no-browser on the command line",
        "SLEUTH_NARRATE": "give --narrate on the command line",
        "SLEUTH_CORPUS": "give --corpus to eval",
        "SLEUTH_SAMPLE": "give --sample to eval",
        "SLEUTH_CONFIG_COMMAND": "give --command to config show",
    }
)

# Config keys that are not settings but one command's own option (no variable: a variable must
# mean one thing everywhere), and the command that reads each.
COMMAND_KEYS: Mapping[str, str] = MappingProxyType(
    {"limit": "search", "interactive": "ask", "narrate": "rerun"}
)


def setting(name: str) -> Setting:
    return SETTINGS[name]


def flag_name(name: str) -> str:
    """How the CLI spells a setting: `max_sources` → `--max-sources`."""
    found = SETTINGS.get(name)
    return found.flag if found else "--" + name.replace("_", "-")
