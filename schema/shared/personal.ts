// Which fields of an event are personal, and whose they are: declared beside each event type, sealed
// and opened by the personal-data layer (services/privacy/personal-data.ts).
export interface PersonalFields {
  /** The data key's subject, e.g. `user-7`: forgetting it makes these fields unreadable for good. */
  subject(data: Record<string, unknown>): string;
  fields: readonly string[];
}
