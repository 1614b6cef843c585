import { type ObjectOptions, type TObject, type TProperties, Type } from '@sinclair/typebox'

/**
 * An object schema with a name: the OpenAPI document lists it once under
 * `components.schemas.<name>` and refers to it wherever it is used (see openapi.ts). Name every
 * request and response schema this way, with the name of its constant.
 */
export function namedObject<T extends TProperties>(
  name: string,
  properties: T,
  options: ObjectOptions = {},
): TObject<T> {
  return Type.Object(properties, { ...options, $id: name })
}
