# syntax=docker/dockerfile:1
# fieldbrief: one image, two commands.
#
#   docker build -t fieldbrief .
#   docker run --rm -e DATABASE_URL=... -e SESSION_KEYS=... -p 8080:8080 fieldbrief   # web serve
#   docker run --rm -e DATABASE_URL=... fieldbrief worker                              # worker
#   docker run --rm -e DATABASE_URL=... fieldbrief web create-org -slug acme -name Acme
#
# The binaries are static (CGO_ENABLED=0) and decide with the zone rules
# embedded in internal/schedule (TZ_SOURCE=embedded, the default), so zone
# rules do not depend on the image (docs/scheduling.md, "Zone rules").

# ---- build ------------------------------------------------------------------
FROM golang:1.26-bookworm AS build
WORKDIR /src
ENV CGO_ENABLED=0 GOTOOLCHAIN=local

# Dependencies first: this layer is reused until go.mod or go.sum change.
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download

COPY . .
RUN --mount=type=cache,target=/go/pkg/mod \
    --mount=type=cache,target=/root/.cache/go-build \
    go build -trimpath -ldflags="-s -w" -o /out/ ./cmd/web ./cmd/worker

# ---- run --------------------------------------------------------------------
# distroless/static: CA certificates, /etc/passwd with the nonroot user, no shell.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/web /out/worker /usr/local/bin/
# A writable home for the nonroot user (uid 65532).
WORKDIR /home/nonroot
USER nonroot:nonroot
# Production by default: web refuses to start without SESSION_KEYS and sets
# Secure cookies (serve it behind HTTPS, or pass -e COOKIE_SECURE=false to try
# it over plain HTTP; -e FIELDBRIEF_ENV=development for a local trial).
ENV FIELDBRIEF_ENV=production \
    ADDR=:8080
EXPOSE 8080
# No ENTRYPOINT: the first argument picks the binary (`web ...` or `worker ...`).
CMD ["web", "serve"]
