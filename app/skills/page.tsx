import { SkillsBrowser } from '@/components/skills/skills-browser';

export const metadata = { title: 'Skills · AgentCSD' };

export default function SkillsPage() {
  return (
    <div className="max-w-4xl space-y-4">
      <div>
        <h1 className="text-2xl font-semibold">Skills</h1>
        <p className="text-sm text-zinc-500">
          Folders with a SKILL.md: a name and a description the agent always sees, instructions it loads when a task calls for them, and files its scripts can use in the
          sandbox. A skill’s instructions are yours (you installed it); its files are read as data. Give a persona a skill here or in its agent graph.
        </p>
      </div>
      <SkillsBrowser />
    </div>
  );
}
