"""The web UI at `/`: server-rendered pages (Jinja2) with a little hand-written JavaScript, all
shipped inside the package; nothing is loaded from anywhere but this server.

    routes.py   the pages (an APIRouter mounted by `create_app` behind the UI guard)
    shell.py    the public routes: login, logout, the assets and the PWA files
    i18n.py     message catalogs (en, zh-Hans, es) and `t(key)` in templates
    pages.py    the Jinja2 environment and the context every page gets
"""
