// The built-in tools' names, in the order models see them: pure, so the settings forms can list
// them without loading the tools themselves.
export const BUILTIN_TOOL_NAMES = ['read_file', 'write_file', 'edit_file', 'list_files', 'grep', 'view_image', 'show_file', 'bash', 'python', 'recall', 'remember', 'journal', 'forget_memory', 'schedule'] as const;

/** The ones a person approves call by call (unless a rule allows it). */
export const GATED_TOOL_NAMES: readonly string[] = ['bash', 'python', 'forget_memory'];

/** The ones that ask for some calls only (schedule: recurring or far away). */
export const SOMETIMES_GATED_TOOL_NAMES: readonly string[] = ['schedule'];
