# One image for every role (ROLE=gateway|projector|worker).
FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npx vite build --config web/vite.config.ts
ENV NODE_ENV=production
EXPOSE 3000
CMD ["node", "--import", "tsx", "services/main.ts"]
