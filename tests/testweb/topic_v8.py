"""Topic 3, a two-step question: "Who co-founded the company that develops the V8 JavaScript
engine?" The V8 page names Google as the developer but no founders; the founders are only on a
separate page about Google, which never mentions V8, so the answer needs a second hop."""

from __future__ import annotations

from tests.testweb.pages import Article

V8_ABOUT = Article(
    url="http://v8.dev/about",
    title="What is V8?",
    site="V8 JavaScript engine",
    cookie_banner=False,
    paragraphs=(
        "V8 is Google's open source high-performance JavaScript and WebAssembly engine, written "
        "in C++. It is developed by Google as part of the Chromium project.",
        "V8 is used in Google Chrome, the open source browser from Google, and in Node.js, among "
        "others. It implements ECMAScript and WebAssembly, and runs on Windows, macOS and Linux "
        "systems that use x64, IA-32 or ARM processors.",
        "V8 compiles and executes JavaScript source code, handles memory allocation for objects, "
        "and garbage collects objects it no longer needs. Its Ignition interpreter and TurboFan "
        "optimizing compiler turn frequently run code into fast machine code.",
        "V8 can run standalone, or can be embedded into any C++ application.",
    ),
)

# Worded so that none of the two-step question's content words (co, founded, founder, company,
# develops, V8, JavaScript, engine) occur: the first search cannot find this page; a second hop
# that names Google can.
GOOGLE_WIKI = Article(
    url="http://en.wikipedia.org/wiki/Google",
    title="Google - Wikipedia",
    site="Wikipedia",
    cookie_banner=False,
    paragraphs=(
        "Google LLC is an American multinational technology corporation focused on online "
        "advertising, web search technology, cloud computing, consumer electronics and "
        "artificial intelligence.",
        "Google was started on September 4, 1998, by American computer scientists Larry Page and "
        "Sergey Brin while they were PhD students at Stanford University in California. Page and "
        "Brin together own about 14% of its publicly listed shares.",
        "## History",
        "Google began in 1996 as a research project called BackRub, which ranked web pages by "
        "the links pointing to them. The name was changed to Google, a play on the number googol, "
        "and the firm was incorporated as a privately held corporation in 1998.",
        "In 2015, Google was reorganized as a wholly owned subsidiary of Alphabet Inc. Sundar "
        "Pichai was appointed chief executive officer of Google in 2015 and of Alphabet in 2019, "
        "replacing Larry Page.",
    ),
)


SPIDERMONKEY_WIKI = Article(
    url="http://en.wikipedia.org/wiki/SpiderMonkey",
    title="SpiderMonkey - Wikipedia",
    site="Wikipedia",
    cookie_banner=False,
    paragraphs=(
        "SpiderMonkey is the first JavaScript engine, written by Brendan Eich at Netscape "
        "Communications, and is now maintained by the Mozilla Foundation. It is used in the "
        "Firefox web browser.",
        "Like V8 in Chrome, SpiderMonkey contains an interpreter and several just-in-time "
        "compilers that turn JavaScript into machine code.",
    ),
)

SEARCHABLE = (V8_ABOUT, GOOGLE_WIKI, SPIDERMONKEY_WIKI)
