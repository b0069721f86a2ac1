# syntax=docker/dockerfile:1
# Twinchain's command line in a slim Node 20 image (with openssl, which build-chain and serve use).
#   docker build --build-arg TWINCHAIN_COMMIT="$(git rev-parse HEAD)" -t twinchain .
#   docker run --rm twinchain swarm scenarios/pbft-swarm.yaml --seeds 100 --shard 0/4 --json-stdout
# TWINCHAIN_COMMIT names the commit in every swarm result (the image has no .git), so that
# `twinchain swarm merge` refuses to join shards of two builds.

FROM node:20-bookworm-slim AS build
# a compiler and libsecp256k1's headers for the native addons (npm ci builds them; without them
# the crypto falls back to the secp256k1 npm package alone)
RUN apt-get update \
 && apt-get install -y --no-install-recommends build-essential python3 libsecp256k1-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY . .
# npm ci runs `prepare`: dist/ compiled from src/, and native/build/; then the development tools go,
# and the sources with them (bin/twinchain.js runs dist/ where there is no src/)
RUN npm ci \
 && npm prune --omit=dev \
 && rm -rf src test scripts/*.ts

FROM node:20-bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends openssl libsecp256k1-1 \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=build /app /app
ARG TWINCHAIN_COMMIT=""
ENV TWINCHAIN_COMMIT=${TWINCHAIN_COMMIT}
# outputs go under /app/reports by default (swarm: reports/<scenario>-swarm/), writable by the user the image runs as
RUN mkdir -p /app/reports && chown node:node /app/reports
USER node
ENTRYPOINT ["node", "/app/bin/twinchain.js"]
CMD ["--help"]
