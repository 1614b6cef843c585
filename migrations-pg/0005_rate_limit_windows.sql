CREATE TABLE "rate_limit_windows" (
	"name" text NOT NULL,
	"key" text NOT NULL,
	"count" bigint NOT NULL,
	"window_end" bigint NOT NULL,
	CONSTRAINT "rate_limit_windows_name_key_pk" PRIMARY KEY("name","key")
);
--> statement-breakpoint
CREATE INDEX "rate_limit_windows_end" ON "rate_limit_windows" USING btree ("window_end");