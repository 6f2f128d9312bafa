"""Tests of ``bluegray.web.routers``: the pages as HTML, the HTTP API's published contract."""
