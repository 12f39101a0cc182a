# The arbiter's image: the SDK distribution (clients/python: games, wire code, SDK) and the server.
# One image for every process: `arbiter serve` (a node), `arbiter web`, `arbiter db upgrade`, ...
#   docker build -t arbiter .
#   docker run --rm -p 50051:50051 arbiter serve --host 0.0.0.0 --bot alice=TOKEN --database none
# (docs/hosting.md, "Deployment"; compose.yaml and deploy/k8s/ use this image.)
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /src
# The SDK first: it changes less often than the server, so its layer is reused more.
COPY clients/python/ clients/python/
RUN pip install ./clients/python
COPY pyproject.toml README.md LICENSE ./
COPY server/ server/
RUN pip install . && rm -rf /src

# Not root; /data holds the default SQLite store (arbiter.db) (and records, with --records DIR).
RUN useradd --system --uid 10001 --home-dir /data --create-home arbiter
USER 10001
WORKDIR /data

# gRPC for bots, the web pages, Prometheus metrics (when asked for with --metrics).
EXPOSE 50051 8080 9100

ENTRYPOINT ["arbiter"]
CMD ["serve", "--host", "0.0.0.0", "--port", "50051", "--metrics", "0.0.0.0:9100"]
