// The web app's types of the API's answers, held against the server's: a field renamed, retyped or
// dropped on one side fails the type check (npm test's tsc step) instead of showing an empty cell.
// The rule is what a client needs: every answer the server builds fits the web's type, and every
// field the web's type names exists in the server's (so an optional one cannot name a field the
// server never sends). The server may send more than a screen reads. Only the sign-in answers (REST)
// are typed by hand; every screen on GraphQL types its answers from its documents (gql.tada, checked
// against the printed schema, which a test holds to the Pothos types and they to the zod answers).
import type { UserDto } from '../../services/users/user-view.js';
import type * as W from '../../web/src/types/api.js';

/** The server's type fits the web's, and names every field the web's names. */
type Fits<Server, Web> = [Server] extends [Web] ? ([keyof Web] extends [keyof Server] ? true : false) : false;
type Expect<T extends true> = T;

export type ServerAnswersFitTheWebTypes = [Expect<Fits<UserDto, W.User>>];
