import { PeopleBrowser } from '@/components/people/people-browser';

export const metadata = { title: 'People · AgentCSD' };

export default function PeoplePage() {
  return (
    <div className="max-w-4xl space-y-4">
      <div>
        <h1 className="text-2xl font-semibold">People</h1>
        <p className="text-sm text-zinc-500">
          Everyone who talks to the agent: you, the owner, and each person you add below or paired on a channel. Each has their own conversations with a persona and reads only their own
          memories of it. A guest&apos;s conversations are offered no shell, Python, web, browser, MCP tools that write, schedules or specialists, and their cards come to
          you; a trusted person decides the cards of their own conversations. Open a person to see their conversations, keys and today, and to widen or narrow what their
          conversations may use, or to invite them to the web pages: a one-time link makes a passkey on their phone, and they see their own sessions, memories and
          cards there — nothing else. One person on two channels (a Telegram id, an IRC account) is merged here.
        </p>
      </div>
      <PeopleBrowser />
    </div>
  );
}
