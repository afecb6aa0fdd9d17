// Row ids are Postgres `integer`s: a larger number names no row, and sent as a parameter it would fail
// the whole query rather than find nothing.
export const MAX_ROW_ID = 2_147_483_647;
