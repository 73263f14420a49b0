# syntax=docker/dockerfile:1
# admission-chain container image.
# The build stage bundles the TypeScript sources and their dependencies into dist/ (rolldown, from
# the locked dev dependencies, `npm run build`); the runtime stage gets dist/ alone: no
# node_modules, no TypeScript stripper, no package manager.
# Base: Node 24 LTS on Debian bookworm slim, pinned by tag and multi-arch index digest. To move to a
# newer patch, update both and check with `docker buildx imagetools inspect node:<tag>`.
ARG NODE_IMAGE=node:24.21.0-bookworm-slim@sha256:2fe369e969550cde8e867afc3fe370b260140cab4a23d467074295b42163d553

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: the bundler's native binding is a prebuilt optional package; the `node` dev
# dependency (a second Node) is not needed here, the image's own Node 24 runs the build.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json ./
COPY build ./build
COPY src ./src
RUN node build/bundle.ts

FROM ${NODE_IMAGE} AS runtime
# The package managers are not needed at run time; removing them drops their CVEs from the image.
RUN rm -rf /usr/local/lib/node_modules/npm /usr/local/lib/node_modules/corepack /opt/yarn-* \
    /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack /usr/local/bin/yarn /usr/local/bin/yarnpkg
WORKDIR /app
ENV NODE_ENV=production
# One malloc arena for the whole process instead of one per thread that allocates (V8's compiler
# and GC helpers, libuv's pool): the webhook's CPU work is on one thread, and the per-thread arenas
# held 15-20 MiB of freed memory with the cluster backend (measured in the chart's memory limit,
# same throughput; docs/benchmark.md).
ENV MALLOC_ARENA_MAX=1
# Allocations of 32 KiB and more get pages of their own, given back when freed. V8's parser and
# compilers take their working memory in 32 KiB segments; from the heap, freed segments stayed
# resident between the live allocations around them (12 MiB with the cluster backend at rest).
# 3-8 MiB less peak RSS under load, the same throughput for bodies up to 256 KiB, about a fifth
# less for 1 MiB bodies (docs/benchmark.md; the chart's extraEnv can raise it).
ENV MALLOC_MMAP_THRESHOLD_=32768
# package.json only for `--version`; everything the webhook runs is in dist/.
COPY package.json ./
COPY --from=build /app/dist ./dist
# Files stay root-owned and read-only to the process; it writes nothing outside /tmp.
USER 65532:65532
EXPOSE 8443 8080
# No shell and no entrypoint wrapper: node is PID 1 and receives SIGTERM itself, so it can drain.
ENTRYPOINT []
# A young generation of 4 MiB per semi-space, whatever the memory limit: Node sizes it from the
# limit (1 MiB in the chart's 512Mi, which costs 10-25 % of throughput in garbage collection; 16
# or more on a large machine). Admission requests die young; measured in the chart's limit, 4 MiB
# holds the throughput of 8 with 4-15 MiB less peak RSS (docs/benchmark.md). Each collection of
# it runs on the main thread alone: split across helper threads, the main thread waits for them.
# At 1,000 req/s a pause was 0.21 ms alone against 0.29 ms split on one core, 0.25-0.27 against
# 0.31-0.32 ms on two (docs/benchmark.md).
CMD ["node", "--max-semi-space-size=4", "--no-parallel-scavenge", "dist/cli/run.js", "serve"]
