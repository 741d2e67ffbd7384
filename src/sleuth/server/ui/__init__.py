"""The web UI at `/`: server-rendered pages (Jinja2) with a little hand-written JavaScript, all
shipped inside the package; nothing is loaded from anywhere but this server.

    routes.py   the pages and the shell's assets (an APIRouter mounted by `create_app`)
    access.py   the access password for everything the server serves (a login cookie)
    i18n.py     message catalogs (en, zh-Hans, es) and `t(key)` in templates
    pages.py    the Jinja2 environment and the context every page gets
"""
