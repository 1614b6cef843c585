# Builds the single Engram executable and runs it as a non-root user with a volume for data.
FROM oven/bun:1 AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN bun install --frozen-lockfile --ignore-scripts || bun install --ignore-scripts
COPY . .
RUN bun run scripts/build.ts dist/engram

FROM debian:bookworm-slim
RUN useradd --system --uid 10001 --home-dir /data --shell /usr/sbin/nologin engram \
 && mkdir -p /data && chown engram /data \
 && apt-get update && apt-get install -y --no-install-recommends ca-certificates && rm -rf /var/lib/apt/lists/*
COPY --from=build /src/dist/engram /usr/local/bin/engram
USER engram
WORKDIR /data
ENV ENGRAM_DATA_DIR=/data ENGRAM_HOST=0.0.0.0 ENGRAM_PORT=8080
VOLUME ["/data"]
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/engram"]
CMD ["serve"]
