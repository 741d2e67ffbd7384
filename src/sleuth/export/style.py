"""The report's inline stylesheet: readable type, light and dark schemes, and a print layout."""

CSS = """
:root { color-scheme: light dark; --fg: #1d1f23; --muted: #5d636e; --bg: #ffffff;
  --panel: #f4f5f7; --link: #0b57d0; --line: #d9dce1;
  --primary: #0a7a3d; --reputable: #1d5fb8; --unknown: #6b7280; --low: #b42318; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #e6e8eb; --muted: #9aa1ab; --bg: #15171a; --panel: #1f2226;
    --link: #8ab4f8; --line: #33373d;
    --primary: #4cc38a; --reputable: #7aa7ef; --unknown: #9aa1ab; --low: #f97066; }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 17px/1.6 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
main { max-width: 46rem; margin: 0 auto; padding: 2.5rem 1.25rem 4rem; }
h1 { font-size: 1.9rem; line-height: 1.25; margin: 0 0 .5rem; }
h2 { font-size: 1.35rem; margin-top: 2.2rem; }
h3 { font-size: 1.1rem; }
a { color: var(--link); }
.meta { color: var(--muted); font-size: .9rem; margin: .2rem 0; }
.meta.id { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: .8rem; }
.toc { background: var(--panel); border-radius: 8px; padding: .6rem 1.2rem; margin: 1.5rem 0; }
.toc h2 { font-size: 1rem; margin: .4rem 0; }
.toc ol { margin: 0; padding-left: 1.2rem; }
.toc .toc-1 { margin-left: 1rem; } .toc .toc-2 { margin-left: 2rem; }
sup.cite { font-size: .7em; line-height: 0; }
sup.cite a { text-decoration: none; padding: 0 .1em; }
pre, code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: .9em; }
pre { background: var(--panel); padding: .8rem 1rem; border-radius: 6px; overflow-x: auto; }
blockquote { border-left: 3px solid var(--line); margin-left: 0; padding-left: 1rem;
  color: var(--muted); }
table { border-collapse: collapse; } th, td { border: 1px solid var(--line); padding: .3rem .6rem; }
figure.illustration { margin: 1rem 0; max-width: 24rem; }
figure.illustration img { display: block; max-width: 100%; height: auto; border-radius: 6px; }
figure.illustration figcaption { color: var(--muted); font-size: .85rem; margin-top: .3rem; }
#sources { border-top: 1px solid var(--line); margin-top: 3rem; }
ol.sources { padding-left: 1.6rem; font-size: .95rem; }
ol.sources li { margin-bottom: .7rem; }
ol.sources li:target { background: var(--panel); }
.url { color: var(--muted); font-size: .8rem; word-break: break-all; }
.dates { color: var(--muted); font-size: .8rem; }
.sources .quote { margin: .3rem 0 0; padding-left: .7rem; border-left: 3px solid var(--muted);
  font-size: .85rem; }
.sources .uncited { color: var(--muted); font-size: .8rem; font-style: italic; }
.sources li.uncited > a { opacity: .75; }
.badge { display: inline-block; font-size: .7rem; font-weight: 600; text-transform: uppercase;
  letter-spacing: .03em; border: 1px solid currentColor; border-radius: 999px;
  padding: 0 .45rem; vertical-align: middle; }
.badge-primary, .badge-trust-high { color: var(--primary); }
.badge-reputable { color: var(--reputable); }
.badge-unknown, .badge-trust-mixed { color: var(--unknown); }
.badge-low, .badge-trust-low { color: var(--low); }
@media print {
  body { font-size: 11pt; background: #fff; color: #000; }
  main { max-width: none; padding: 0; }
  a { color: #000; }
  .toc { display: none; }
  ol.sources li { break-inside: avoid; }
  #sources a[href^="http"]::after { content: ""; }
}
"""
