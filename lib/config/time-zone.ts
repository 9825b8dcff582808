// An IANA time zone name, as Intl knows it (schedules, quiet hours): "Europe/Madrid", "UTC".
import { z } from 'zod';

export const timeZoneSchema = z.string().refine((zone) => {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}, 'time_zone must be an IANA time zone such as Europe/Madrid');
