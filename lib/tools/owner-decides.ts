// Calls only the owner decides, whoever's conversation raised them (issue 42 §3, ARCHITECTURE §21):
// a memory the agent would share with every conversation of the persona. No allow rule approves
// one on its own (lib/agent/session-toolbox.ts), and a chat's card for one goes to the owner only
// (lib/channels).
export function ownerDecides(name: string, args: unknown): boolean {
  return name === 'remember' && typeof args === 'object' && args !== null && (args as { scope?: unknown }).scope === 'shared';
}
