-- Capabilities (issue 18, ARCHITECTURE §13): each persona's agent graph, and the graph a session
-- was created with (its snapshot, like the Persona Core's). Graphs are JSON in the seed's shape.
CREATE TABLE "capability_graphs" (
    "persona_name" TEXT NOT NULL PRIMARY KEY,
    "graph" TEXT NOT NULL,
    "updated_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

CREATE TABLE "session_capabilities" (
    "session_id" TEXT NOT NULL PRIMARY KEY,
    "graph" TEXT NOT NULL,
    -- The persona had no graph of its own: the default (every tool and MCP server) applied.
    "from_default" BOOLEAN NOT NULL DEFAULT false,
    CONSTRAINT "session_capabilities_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
