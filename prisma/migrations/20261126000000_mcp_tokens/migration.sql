-- OAuth sign-ins to remote MCP servers (issue 30, ARCHITECTURE §17); secret columns are sealed.
CREATE TABLE "mcp_tokens" (
    "server_name" TEXT NOT NULL PRIMARY KEY,
    "server_url" TEXT NOT NULL,
    "client_information" TEXT,
    "tokens" TEXT,
    "discovery" TEXT,
    "code_verifier" TEXT,
    "pending_state" TEXT,
    "pending_redirect" TEXT,
    "pending_expires_at" DATETIME,
    "expires_at" DATETIME,
    "needs_sign_in" TEXT,
    "refresh_lock_until" DATETIME,
    "refresh_lock_owner" TEXT,
    "updated_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE UNIQUE INDEX "mcp_tokens_pending_state_key" ON "mcp_tokens"("pending_state");
