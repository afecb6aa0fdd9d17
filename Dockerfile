# One image for every role: ROLE=gateway|projector|worker picks what the process runs.
FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
# Dev dependencies stay: vite builds the web app below, and tsx runs the TypeScript sources.
RUN npm ci --no-audit --no-fund
COPY . .
RUN npx vite build --config web/vite.config.ts
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000
USER node
EXPOSE 3000
CMD ["node", "--import", "tsx", "services/main.ts"]
