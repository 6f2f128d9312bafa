# bluegray's web service and AI worker: one image, two commands (docs/deploy.md).
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    NUMBA_CACHE_DIR=/var/cache/bluegray/numba

RUN useradd --create-home --uid 10001 bluegray \
    && mkdir -p /var/cache/bluegray/numba \
    && chown -R bluegray /var/cache/bluegray

WORKDIR /src
COPY . /src
# The install step is the README's own command (with the PostgreSQL driver for the scaled mode).
RUN pip install --no-cache-dir ".[web,fast,postgres]"

USER bluegray
EXPOSE 8000
# Web processes: bluegray serve --host 0.0.0.0; AI workers: bluegray worker (see compose file).
CMD ["bluegray", "serve", "--host", "0.0.0.0", "--port", "8000"]
