"""The platform under every domain: the database, the settings, time, HTTP errors, secrets and
headers, the request gate, rate limits, logs and metrics. It imports no domain."""
