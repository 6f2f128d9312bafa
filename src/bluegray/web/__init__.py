"""The web app (``bluegray serve``): play online, against the AI or hot-seat; replay, analyse,
download and import games. It needs the ``web`` extra: ``pip install "bluegray[web]"``.

The app is made by ``bluegray.web.app.create_app`` from
``bluegray.web.platform.settings.Settings``. This package's own module imports nothing, so that
the engine's processes, which import ``bluegray.web.ai.engine_work``, do not load the web framework.
docs/architecture.md draws its packages by domain and their layers.
"""
