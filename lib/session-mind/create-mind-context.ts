// The MindContext a session's mind hands its cycles and turns: its settings and memory, its
// toolbox for the turn about to run (with the graph's own tools), and the recorded model call.
import { createMindToolbox, toolActivityLine } from '@/lib/agent/mind-toolbox';
import type { SessionGraphParts } from '@/lib/capabilities/capability-tools';
import type { CallLayer, UsageTotals } from '@/lib/store/mind-repository';
import type { SessionRecord } from '@/lib/store/sessions-repository';
import type { PromptRecord } from '@/lib/mind/events';
import type { LayerHealth } from './layer-health';
import type { MindContext } from './mind-context';
import type { MindDependencies } from './mind-dependencies';
import type { MindMemory } from './mind-memory';
import { mindModelCalls } from './mind-model-calls';
import { LoadedTools } from '@/lib/agent/tool-search';
import { readEnv } from '@/lib/config/env';
import { loadSkillTool, sessionSkills, skillMounts } from '@/lib/skills/skill-tools';
import { skillsVersion, type Skill } from '@/lib/skills/skill-files';
import { clientTool, takeClientTools } from '@/lib/tools/client-tools';

export function createMindContext(input: {
  session: () => SessionRecord;
  personaCore: string;
  graph: SessionGraphParts;
  memory: MindMemory;
  deps: MindDependencies;
  health: LayerHealth;
  prompts: Partial<Record<CallLayer, PromptRecord>>;
  usage: Record<CallLayer, UsageTotals>;
  /** The running cycle's allowance for giving way to replies. */
  giveWay: () => Promise<void> | undefined;
  /** The mind's state changed (a retry is waiting). */
  changed: () => void;
}): MindContext {
  const { deps, memory } = input;
  const sessionId = input.session().id;
  // What the session loaded with search_tools stays loaded for the life of its mind.
  const loadedTools = new LoadedTools();
  // Read once for the moment a turn starts (its toolbox and its prompt, and a task's next step):
  // the walk of the skills' folders was a task step's largest cost of its own. A skill installed
  // by the app shows at once (skillsVersion); one copied in by hand, 100 ms later at most.
  let listed: { at: number; version: number; skills: Skill[] } | null = null;
  const skills = () => {
    const now = performance.now();
    if (!listed || listed.version !== skillsVersion() || now - listed.at > 100) {
      listed = { at: now, version: skillsVersion(), skills: sessionSkills({ persona: input.session().personaName, names: input.graph.skills }) };
    }
    return listed.skills;
  };
  const skillTool = loadSkillTool(skills);
  return {
    sessionId,
    personaCore: input.personaCore,
    instructions: input.graph.instructions,
    skills,
    memory,
    session: input.session,
    calibration: (model) => deps.calibration.factor(model),
    yieldToReplies: async () => input.giveWay(),
    toolbox: (task, onFinished) =>
      createMindToolbox({
        task,
        session: input.session(),
        bus: deps.bus,
        broker: deps.approvals,
        toolServer: deps.toolServer.current,
        mcpTools: deps.mcp.tools(),
        // A door's client offered its own functions for the turn that answers it (issue 78 §1): a reply's turn only.
        capabilityTools: [...input.graph.tools, ...(skills().length > 0 ? [skillTool] : []), ...(task ? [] : takeClientTools(sessionId).map((tool) => clientTool(tool, deps.approvals)))],
        readOnlyMounts: () => skillMounts(skills()),
        onFinished: (call) => {
          memory.recordToolActivity(toolActivityLine(call));
          onFinished?.(call);
        },
        search: { loaded: loadedTools, budgetTokens: readEnv().AGENTCSD_TOOL_SEARCH_TOKENS },
      }),
    toolServer: () => deps.toolServer.current,
    callModel: mindModelCalls({ sessionId, deps, health: input.health, prompts: input.prompts, usage: input.usage, changed: input.changed }),
  };
}
