"""Tests of ``bluegray.web.platform``: the parts under the app, refusals, logs, slow clients."""
