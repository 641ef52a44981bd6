# The reverse proxy for docker-compose.yml's "proxy" service, built from Debian packages only
# (make images): Debian's nginx-light (the binary tests/deploy/test_proxy.py runs
# deploy/proxy/nginx.conf with) and wget for the compose health check. Compose runs it as
# uid 101 with a read-only root (bookworm's nginx-light: security updates come with a rebuild): nginx.conf keeps its pid and temporary files in /tmp.
#   docker build --network host -f deploy/images/proxy.Dockerfile \
#     --build-arg BASE_IMAGE=empire-base:bookworm -t empire-proxy:1.22 deploy/images
ARG BASE_IMAGE=debian:bookworm-slim
FROM ${BASE_IMAGE}
RUN printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d \
    && apt-get update \
    && apt-get install -y --no-install-recommends nginx-light wget \
    && apt-get clean && rm -rf /var/lib/apt/lists/* /usr/share/doc /usr/share/man /usr/sbin/policy-rc.d \
    && ln -sf /dev/stderr /var/log/nginx/error.log
USER 101:101
EXPOSE 8080
STOPSIGNAL SIGQUIT
CMD ["nginx", "-g", "daemon off;"]
