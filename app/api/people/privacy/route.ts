// Whether people's words stay their own (issue 61 §6, off by default): on, the owner's pages show
// that a person's conversations exist, what they cost and the cards the owner decides — not what was said.
import { z } from 'zod';
import { handle, readJsonBody } from '@/lib/http/route-helpers';
import { readPeoplePrivacy, writePeoplePrivacy } from '@/lib/store/people-repository';

export const dynamic = 'force-dynamic';

export const GET = handle(async () => Response.json({ privacy: await readPeoplePrivacy() }));

export const PUT = handle(async (request) => {
  const privacy = await readJsonBody(request, z.object({ words_stay_private: z.boolean() }).strict(), 1024);
  await writePeoplePrivacy(privacy);
  return Response.json({ privacy });
});
