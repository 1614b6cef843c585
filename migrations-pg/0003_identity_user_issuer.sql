DROP INDEX "user_identities_user";--> statement-breakpoint
CREATE UNIQUE INDEX "user_identities_user_issuer" ON "user_identities" USING btree ("user_id","issuer");