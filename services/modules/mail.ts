// Outgoing e-mail (platform): the `mail` queue and the table of delivered mails. No events, no
// screens: modules' jobs queue mails with enqueueMail (workers/mail/mail.ts).

import { MAIL_QUEUE, mailJobHandlers } from '../../workers/mail/mail.js';
import { setupMailDeliveries } from '../mail/deliveries.js';
import { defineModule } from './module.js';

export const mailModule = defineModule({
  name: 'mail',
  jobHandlers: { [MAIL_QUEUE]: mailJobHandlers },
  storage: setupMailDeliveries,
});
