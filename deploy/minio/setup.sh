#!/bin/sh
# The one-shot `minio-setup` service of deploy/compose.yaml: the bucket, its versioning and lifecycle,
# and Engram's own MinIO user limited to that bucket (the policy GET /v1/sources/s3/setup prints as
# engram_policy). Safe to run again: each step leaves what is already there as it is.
set -eu

mc alias set store http://minio:9000 "$MINIO_ROOT_USER" "$MINIO_ROOT_PASSWORD" >/dev/null

mc mb --ignore-existing "store/$S3_BUCKET"

# Versions of overwritten and deleted objects are kept, so an object deleted by mistake (or by a bad
# release) can be brought back, and expire NONCURRENT_DAYS after they stop being current: that is
# how long a deleted document's bytes stay in the bucket (the erasure timeline's "old versions per
# the bucket's lifecycle", docs/governance.md). A bucket that already has lifecycle rules is left as
# it is.
mc version enable "store/$S3_BUCKET"
if ! mc ilm rule ls "store/$S3_BUCKET" >/dev/null 2>&1; then
  mc ilm rule add --noncurrent-expire-days "$NONCURRENT_DAYS" "store/$S3_BUCKET"
  mc ilm rule add --expire-delete-marker "store/$S3_BUCKET"
fi

# The policy names the bucket "engram"; another bucket name needs the policy file edited too.
mc admin policy create store engram-objects /setup/engram-policy.json
mc admin user add store "$S3_ACCESS_KEY" "$S3_SECRET_KEY"
if ! mc admin policy attach store engram-objects --user "$S3_ACCESS_KEY"; then
  # Attaching a policy the user already has is refused; anything else is a failure.
  mc admin user info store "$S3_ACCESS_KEY" | grep -q engram-objects
fi
echo "bucket $S3_BUCKET ready for user $S3_ACCESS_KEY"
