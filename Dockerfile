# One image for every role: ROLE=gateway|projector|worker picks what the process runs.
# Built in stages so the image holds compiled JavaScript and production dependencies only: no
# TypeScript toolchain, no tsx, no test or build tools.

# 1. Build: every dependency, the web app (vite) and the server (tsc -> dist/).
FROM node:20.19.5-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npx vite build --config web/vite.config.ts && npx tsc -p tsconfig.build.json

# 2. Production dependencies only (native ones, such as argon2, come prebuilt inside npm packages).
FROM node:20.19.5-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

# 3. The image.
FROM node:20.19.5-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 WEB_DIST=/app/web/dist
COPY package.json ./
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/web/dist ./web/dist
USER node
EXPOSE 3000
# Node flags: services/shared/node-flags.ts says why (a test keeps the two the same).
CMD ["node", "--max-semi-space-size=64", "dist/services/main.js"]
