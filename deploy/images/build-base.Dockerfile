# The build stage's image for deploy/docker/Dockerfile when make images builds offline from
# image registries: the local base (Debian bookworm minbase + python3) with python3-venv (the
# Dockerfile's build stage makes uv's virtualenv with it) and the host's CA bundle, so pip and
# uv inside the build trust what the host trusts (a TLS-intercepting proxy's CA included).
# Only the build stage runs on it: the runtime stage starts again from the base.
#   docker build --network host -f deploy/images/build-base.Dockerfile \
#     --build-arg BASE_IMAGE=empire-python:3.11-slim-bookworm -t empire-python-build:3.11-slim-bookworm CTX
# CTX holds ca-bundle.crt (make images copies /etc/ssl/certs/ca-certificates.crt there).
ARG BASE_IMAGE=python:3.11-slim-bookworm
FROM ${BASE_IMAGE}
RUN printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d \
    && apt-get update \
    && apt-get install -y --no-install-recommends python3-venv \
    && apt-get clean && rm -rf /var/lib/apt/lists/* /usr/sbin/policy-rc.d
COPY ca-bundle.crt /etc/ssl/certs/build-ca-bundle.crt
ENV SSL_CERT_FILE=/etc/ssl/certs/build-ca-bundle.crt \
    PIP_CERT=/etc/ssl/certs/build-ca-bundle.crt \
    REQUESTS_CA_BUNDLE=/etc/ssl/certs/build-ca-bundle.crt
