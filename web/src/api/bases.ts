/**
 * Document bases, their documents and their onboarding jobs (`/v1/corpora`, `/v1/jobs`), and a
 * base as MCP agents see it.
 */
import { http, listAll, ok, type Page } from './client'
import type { Corpus, Doc, Job, McpMeta } from './types'

const base = (id: string) => ({ path: { corpus_id: id } })

/** The workspace's bases, newest first. */
export function listBases(signal?: AbortSignal): Promise<Corpus[]> {
  return listAll((cursor) =>
    ok(http.GET('/v1/corpora', { params: { query: { limit: 100, cursor } }, signal })),
  )
}

/** One base, with its counters. */
export function getBase(id: string, signal?: AbortSignal): Promise<Corpus> {
  return ok(http.GET('/v1/corpora/{corpus_id}', { params: base(id), signal }))
}

/** Creates a base named `name`. */
export function createBase(name: string): Promise<Corpus> {
  return ok(http.POST('/v1/corpora', { body: { name } }))
}

/** Turns automatic onboarding of new and changed documents on or off; answers the base. */
export function setAutoOnboard(id: string, on: boolean): Promise<Corpus> {
  return ok(http.PATCH('/v1/corpora/{corpus_id}', { params: base(id), body: { auto_onboard: on } }))
}

/** Deletes a base and everything in it. */
export async function deleteBase(id: string): Promise<void> {
  await http.DELETE('/v1/corpora/{corpus_id}', { params: base(id) })
}

/** A page of a base's documents (files only), after `cursor`. */
export function documentsPage(
  id: string,
  cursor: string | undefined,
  limit: number,
  signal?: AbortSignal,
): Promise<Page<Doc>> {
  return ok(
    http.GET('/v1/corpora/{corpus_id}/documents', {
      params: { path: { corpus_id: id }, query: { limit, cursor } },
      signal,
    }),
  )
}

/** Every document of a base with its sections (the API lists sections for the whole base only). */
export function listDocumentsWithSections(id: string): Promise<Doc[]> {
  return listAll((cursor) =>
    ok(
      http.GET('/v1/corpora/{corpus_id}/documents', {
        params: { path: { corpus_id: id }, query: { sections: true, limit: 100, cursor } },
      }),
    ),
  )
}

/** Deletes one document of a base. */
export async function deleteDocument(baseId: string, docId: string): Promise<void> {
  await http.DELETE('/v1/corpora/{corpus_id}/documents/{document_id}', {
    params: { path: { corpus_id: baseId, document_id: docId } },
  })
}

/**
 * The kinds of job a base's history shows: runs, automatic starts, embedding, and the background
 * work after a run (cartridges, encoding); not a run's batches.
 */
const HISTORY_KINDS = ['train', 'train_auto', 'embed', 'train_deferred', 'encode'] as const

/**
 * The base's onboarding runs, automatic starts (`train_auto`), embed jobs and background builds
 * (`train_deferred`: cartridges; `encode`: passages for the support check), newest first. Asked
 * kind by kind: a run's batches, many in a large base, are not listed only to be left out.
 */
export async function listJobs(id: string, signal?: AbortSignal): Promise<Job[]> {
  const lists = await Promise.all(
    HISTORY_KINDS.map((kind) =>
      listAll((cursor) =>
        ok(
          http.GET('/v1/corpora/{corpus_id}/jobs', {
            params: { path: { corpus_id: id }, query: { kind, limit: 100, cursor } },
            signal,
          }),
        ),
      ),
    ),
  )
  return lists.flat().sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id))
}

/** Starts onboarding new and changed documents (all of them with `force`). */
export function startOnboarding(id: string, force: boolean): Promise<Job> {
  return ok(
    http.POST('/v1/corpora/{corpus_id}/train', { params: { path: { corpus_id: id }, query: { force } } }),
  )
}

/** Asks the running onboarding to stop after the documents in hand. */
export async function cancelOnboarding(id: string): Promise<void> {
  await http.POST('/v1/corpora/{corpus_id}/cancel', { params: base(id) })
}

/** A job's state, progress and estimate. */
export function getJob(id: string, signal?: AbortSignal): Promise<Job> {
  return ok(http.GET('/v1/jobs/{job_id}', { params: { path: { job_id: id } }, signal }))
}

/** A job that will not change any more. */
export function isFinished(job: Job): boolean {
  return job.status === 'succeeded' || job.status === 'failed' || job.status === 'canceled'
}

/** A base as MCP agents see it, with its endpoints. */
export function getMcpMeta(id: string, signal?: AbortSignal): Promise<McpMeta> {
  return ok(http.GET('/v1/mcp/{corpus_id}/meta', { params: base(id), signal }))
}
