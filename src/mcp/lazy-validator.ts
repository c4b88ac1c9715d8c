// The SDK's JSON Schema validator, built on first use: the SDK builds an Ajv instance (with its formats compiled) for
// every server it creates, and this server only needs one if a client ever answers an elicitation.
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";

export function lazyJsonSchemaValidator(): jsonSchemaValidator {
  let real: AjvJsonSchemaValidator | undefined;
  return { getValidator: (schema) => (real ??= new AjvJsonSchemaValidator()).getValidator(schema) };
}
