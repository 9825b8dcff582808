import { notFound } from 'next/navigation';
import { PeopleBrowser } from '@/components/people/people-browser';
import { AccessSettings } from '@/components/settings/access-settings';
import { AllowancesSettings } from '@/components/settings/allowances-settings';
import { ChannelsSettings } from '@/components/settings/channels-settings';
import { BackupsSettings } from '@/components/settings/backups-settings';
import { ClusterSettings } from '@/components/settings/cluster-settings';
import { McpServersSettings } from '@/components/settings/mcp-servers-settings';
import { MemorySettings } from '@/components/settings/memory-settings';
import { SettingsForm } from '@/components/settings/settings-form';
import { settingsSection, type SettingsSlug } from '@/components/settings/settings-sections';
import { SettingsTravel } from '@/components/settings/settings-travel';
import { ToolsSettings } from '@/components/settings/tools-settings';
import { ReplyVoiceSettings } from '@/components/settings/reply-voice-settings';
import { VoiceSettings } from '@/components/settings/voice-settings';
import { SkillsBrowser } from '@/components/skills/skills-browser';
import Link from 'next/link';
import { MyDevices } from '@/components/web-auth/my-devices';

const contents: Record<SettingsSlug, () => React.ReactNode> = {
  models: () => <SettingsForm />,
  tools: () => <ToolsSettings />,
  mcp: () => <McpServersSettings />,
  memory: () => <MemorySettings />,
  channels: () => <ChannelsSettings />,
  voice: () => (
    <>
      <VoiceSettings />
      <ReplyVoiceSettings />
    </>
  ),
  skills: () => <SkillsBrowser />,
  people: () => <PeopleBrowser />,
  access: () => <AccessSettings />,
  spending: () => (
    <>
      <AllowancesSettings />
      <p className="text-sm">
        <Link className="underline" href="/spending">
          Where the money went: the Spending page
        </Link>
      </p>
    </>
  ),
  backups: () => (
    <>
      <BackupsSettings />
      <SettingsTravel />
    </>
  ),
  cluster: () => <ClusterSettings />,
  devices: () => <MyDevices />,
};

export async function generateMetadata({ params }: { params: Promise<{ section: string }> }) {
  const section = settingsSection((await params).section);
  return { title: `${section?.title ?? 'Settings'} · Settings · AgentCSD` };
}

export default async function SettingsSectionPage({ params }: { params: Promise<{ section: string }> }) {
  const section = settingsSection((await params).section);
  if (!section) notFound();
  return (
    <div className="max-w-3xl space-y-4">
      <div>
        <h1 className="text-2xl font-semibold">{section.title}</h1>
        <p className="text-sm text-zinc-600 dark:text-zinc-400">
          {section.blurb} <span className="whitespace-nowrap">Reference: {section.doc}.</span>
        </p>
      </div>
      {contents[section.slug]()}
    </div>
  );
}
