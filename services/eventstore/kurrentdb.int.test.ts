// The KurrentDB adapter against a real KurrentDB in a container. Where no Docker engine answers
// (the CI machines have none), the suite is skipped and says so on stderr.
import { GenericContainer, getContainerRuntimeClient, type StartedTestContainer, Wait } from 'testcontainers';
import { describe, it } from 'vitest';
import { eventStoreContract } from './contract.js';
import { KurrentDbEventStore } from './kurrentdb.js';

const IMAGE = process.env.KURRENTDB_IMAGE ?? 'docker.kurrent.io/kurrent-latest/kurrentdb:25.0';

async function dockerAnswers(): Promise<string | null> {
  if (process.env.EVENTSTORE_URL) return null;
  try {
    await getContainerRuntimeClient();
    return null;
  } catch (err) {
    return (err as Error).message.split('\n')[0];
  }
}

const noDocker = await dockerAnswers();

if (noDocker) {
  process.stderr.write(
    `\n[kurrentdb.int.test] SKIPPED: the KurrentDB contract needs a Docker engine for testcontainers (or EVENTSTORE_URL pointing at a running KurrentDB). Here: ${noDocker}\n\n`,
  );
  describe('event store contract: kurrentdb', () => {
    it.skip(`skipped: no Docker engine answers (${noDocker}); set EVENTSTORE_URL to run against a server`, () => {});
  });
} else {
  eventStoreContract(
    'kurrentdb',
    async () => {
      let container: StartedTestContainer | null = null;
      let url = process.env.EVENTSTORE_URL;
      if (!url) {
        container = await new GenericContainer(IMAGE)
          .withEnvironment({ KURRENTDB_INSECURE: 'true', KURRENTDB_RUN_PROJECTIONS: 'None' })
          .withExposedPorts(2113)
          .withWaitStrategy(Wait.forHttp('/health/live', 2113).forStatusCode(204))
          .withStartupTimeout(120_000)
          .start();
        url = `kurrentdb://${container.getHost()}:${container.getMappedPort(2113)}?tls=false`;
      }
      const store = new KurrentDbEventStore(url);
      await store.init();
      return {
        store,
        async cleanup() {
          await store.close();
          await container?.stop();
        },
      };
    },
    // KurrentDB appends over gRPC one round trip each; a smaller load keeps the run short.
    { eventsPerWriter: 500 },
  );
}
