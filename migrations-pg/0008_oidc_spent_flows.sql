CREATE TABLE "oidc_spent_flows" (
	"key" text PRIMARY KEY NOT NULL,
	"expires_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "oidc_spent_flows_expires" ON "oidc_spent_flows" USING btree ("expires_at");