// Every read model the projector runs. Order does not matter: each has its own checkpoint.

import { activityProjection } from './activity.js';
import type { Projection } from './projection.js';
import { usersProjection } from './users.js';

export const projections: Projection[] = [usersProjection, activityProjection];
