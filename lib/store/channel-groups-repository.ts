// Group chats the agent was asked into (issue 42 §5) as rows: one per group of a channel, with the
// group's session and the person that stands for the group.
import { getDb } from './db';

export type GroupAnswer = 'mentions' | 'all';

export interface GroupRecord {
  id: string;
  channelId: string;
  groupId: string;
  title: string;
  sessionId: string;
  personId: string;
  answer: GroupAnswer;
  createdAt: Date;
}

type GroupRow = Awaited<ReturnType<Awaited<ReturnType<typeof getDb>>['channelGroup']['findUniqueOrThrow']>>;
const groupRecord = (row: GroupRow): GroupRecord => ({ ...row, answer: row.answer as GroupAnswer });

export async function findGroup(channelId: string, groupId: string): Promise<GroupRecord | null> {
  const row = await (await getDb()).channelGroup.findUnique({ where: { channelId_groupId: { channelId, groupId } } });
  return row ? groupRecord(row) : null;
}

export async function insertGroup(input: Omit<GroupRecord, 'createdAt'>): Promise<GroupRecord> {
  return groupRecord(await (await getDb()).channelGroup.create({ data: input }));
}

export async function setGroupAnswer(id: string, answer: GroupAnswer): Promise<void> {
  await (await getDb()).channelGroup.updateMany({ where: { id }, data: { answer } });
}

/** The agent leaves: the group's row goes (its session stays, as a record of what was said). */
export async function deleteGroup(id: string): Promise<void> {
  await (await getDb()).channelGroup.deleteMany({ where: { id } });
}
