# syntax=docker/dockerfile:1
# ringhook in a container: the service, its managed Asterisk and the speech engines.
#
#   docker build -t ringhook .
#   docker run -d --name ringhook -p 8443:8443 -p 5060:5060/udp -p 10000-10099:10000-10099/udp \
#     -e RINGHOOK_RTP_PORTS=10000-10099 -v ringhook-data:/data ringhook
#   docker exec ringhook ringhook account create --phone +14155550123
#
# Stage 1 builds on Debian 12 (bookworm), as CI does, with the Node LTS that the single executable
# embeds (scripts/build-binary.sh); stage 2 is Debian sid, whose apt has an asterisk package, so the
# same scripts/provision-asterisk.sh that CI runs installs Asterisk from it ("host" mode: no chroot,
# no root needed at run time). See docs/binary.md for the Node version.

ARG NODE_IMAGE=node:22.23.3-bookworm-slim

# --- build: compile the TypeScript, build the SQLite addon, keep the production dependencies --------
FROM ${NODE_IMAGE} AS build
SHELL ["/bin/bash", "-o", "pipefail", "-c"]
# node-gyp's toolchain, for better-sqlite3 when no prebuilt addon matches (and for the resident
# flite below, with libflite to try it).
# hadolint ignore=DL3008
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ libflite1 \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# What CI does: `npm ci` (better-sqlite3's install script, then the `prepare` script: tsc), then the
# build again for clarity, then only the production dependencies are kept.
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY native ./native
COPY scripts/patch-postgres.mjs ./scripts/
RUN --mount=type=cache,target=/root/.npm \
    npm ci --no-audit --no-fund \
 && npm run build \
 && npm prune --omit=dev --no-audit --no-fund \
 && node -e "new (require('better-sqlite3'))(':memory:').prepare('select 1').get()"
# The resident flite (src/speech/flite-resident.ts), built here where there is a compiler, by serve's
# own code, so that it has the name serve looks for in RINGHOOK_CACHE_DIR; it needs only the C library.
RUN node --input-type=module -e "const { buildResidentFlite } = await import('./dist/speech/flite-resident.js'); console.log(await buildResidentFlite('/out/cache'))"

# --- runtime ----------------------------------------------------------------------------------------
FROM debian:sid-slim AS runtime
SHELL ["/bin/bash", "-o", "pipefail", "-c"]
ENV NODE_ENV=production \
    RINGHOOK_DATA_DIR=/data \
    RINGHOOK_CACHE_DIR=/opt/ringhook/cache \
    RINGHOOK_HOST=0.0.0.0 \
    RINGHOOK_PORT=8443
WORKDIR /app
# The provisioning scripts CI runs: Asterisk from sid's apt (recorded as "host" in
# $RINGHOOK_CACHE_DIR/asterisk-runtime), then the speech engines and voices and sox (and sipp, a handy test
# phone). tini reaps the processes Asterisk and the speech engines leave behind. (Versions are
# sid's of the day, as on CI's root file system: rebuild to pick up security fixes.)
COPY scripts/ensure-debs.sh scripts/provision-asterisk.sh scripts/provision-speech.sh scripts/provision-phone-tools.sh ./scripts/
RUN RINGHOOK_ASTERISK_MODE=host bash scripts/provision-asterisk.sh \
 && bash scripts/provision-phone-tools.sh \
 && bash scripts/ensure-debs.sh tini ca-certificates libstdc++6 \
 && grep -qx host "$RINGHOOK_CACHE_DIR/asterisk-runtime" \
 && asterisk -V \
 && apt-get clean \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/archives/*.deb
COPY --from=build /usr/local/bin/node /usr/local/bin/node
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY bin ./bin
COPY asterisk ./asterisk
COPY native ./native
COPY --from=build /out/cache/ /opt/ringhook/cache/
# ringhook runs unprivileged: Debian's Asterisk ("host" mode) needs no chroot, its files live under
# /data/asterisk, and every port is above 1023. (Checked outside Docker: a sid root file system, the
# binary and its Asterisk as uid 10001.)
RUN useradd --uid 10001 --user-group --no-create-home --home-dir /data --shell /usr/sbin/nologin ringhook \
 && mkdir -p /data \
 && chown ringhook:ringhook /data \
 && chmod 700 /data \
 && ln -s /app/bin/ringhook.js /usr/local/bin/ringhook \
 && node /app/bin/ringhook.js --version
USER ringhook
VOLUME ["/data"]
# HTTPS (webhook, dashboard); SIP; RTP (publish the range you set in RINGHOOK_RTP_PORTS).
EXPOSE 8443/tcp 5060/udp 10000-20000/udp
# /healthz answers 503 when the database, Asterisk or the SMS gateway is down. Loopback only, so
# the certificate (self-signed or not) is not checked.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "require('https').get({host:'127.0.0.1',port:process.env.RINGHOOK_PORT||8443,path:'/healthz',rejectUnauthorized:false,timeout:4000},r=>process.exit(r.statusCode===200?0:1)).on('error',()=>process.exit(1)).on('timeout',()=>process.exit(1))"]
STOPSIGNAL SIGTERM
# tini reaps; ringhook-supervise runs the command and, should serve die (kill -9, out of memory), waits
# for its Asterisk to hang up the calls in progress (a BYE to each phone) before the container ends:
# when PID 1 exits, the kernel kills every process in the container at once.
# --max-semi-space-size=4: V8's young generation capped (serve's peak memory under load, bench/NOTES.md #58).
ENTRYPOINT ["/usr/bin/tini", "--", "/app/bin/ringhook-supervise", "node", "--max-semi-space-size=4", "/app/bin/ringhook.js"]
CMD ["serve"]
