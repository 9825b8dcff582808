import { SettingsForm } from '@/components/settings/settings-form';
import { McpServersSettings } from '@/components/settings/mcp-servers-settings';
import { ToolsSettings } from '@/components/settings/tools-settings';
import { MemorySettings } from '@/components/settings/memory-settings';
import { ChannelsSettings } from '@/components/settings/channels-settings';
import { ClusterSettings } from '@/components/settings/cluster-settings';
import { AccessSettings } from '@/components/settings/access-settings';
import { AllowancesSettings } from '@/components/settings/allowances-settings';

export const metadata = { title: 'Settings · AgentCSD' };

export default function SettingsPage() {
  return (
    <div className="max-w-3xl space-y-4">
      <div>
        <h1 className="text-2xl font-semibold">Settings</h1>
        <p className="text-sm text-zinc-500">Defaults for new sessions. Each session keeps its own copy, editable on its page.</p>
      </div>
      <SettingsForm />
      <ToolsSettings />
      <McpServersSettings />
      <MemorySettings />
      <ChannelsSettings />
      <AccessSettings />
      <AllowancesSettings />
      <ClusterSettings />
    </div>
  );
}
