// Whether a vendor is mailed its remittance advice when a file paying it goes to the bank: on for
// every vendor until staff turn it off on its page. Setting it as it already is records nothing.
import type { VendorEvent } from '../../schema/vendors/events.js';

export type RemittanceAdviceCommand = {
  type: 'SetRemittanceAdvice';
  enabled: boolean;
  byUserId: number;
  now: string;
};

export function setRemittanceAdvice(
  vendorId: number,
  current: boolean,
  { enabled, byUserId, now }: RemittanceAdviceCommand,
): VendorEvent[] {
  if (enabled === current) return [];
  return [{ type: 'VendorRemittanceAdviceSet', data: { vendorId, enabled, byUserId, at: now } }];
}
