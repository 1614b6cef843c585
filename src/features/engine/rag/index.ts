// The rag stage: the retrieval that searches a base's passage index.
// Code outside this folder imports only this file (tests/unit/engine-stages.test.ts).
export { type SectionRef, searchIndex } from './ragsearch'
