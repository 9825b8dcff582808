// What the chat shows of an MCP server's question to the user (issue 30's elicitation): the
// card's fields and status. Never the answer's content.
export type ElicitationStatus = 'pending' | 'accepted' | 'declined' | 'cancelled' | 'expired';

export interface ElicitationField {
  name: string;
  title: string;
  description: string | null;
  type: 'string' | 'number' | 'integer' | 'boolean' | 'array';
  /** Choices of an enum field (a multi-select for `array`). */
  choices: string[] | null;
  format: string | null;
  default: string | number | boolean | null;
  required: boolean;
  sensitive: boolean;
}

export interface ElicitationJson {
  id: string;
  session_id: string;
  server: string;
  mode: 'form' | 'url';
  message: string;
  fields: ElicitationField[];
  url: string | null;
  /** A form field looks like a secret (password, key, token…). */
  sensitive: boolean;
  status: ElicitationStatus;
  created_at: string;
}

