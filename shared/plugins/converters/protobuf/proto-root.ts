/**
 * A registry schema's .proto text, parsed with protobufjs into the types the codec uses, with
 * its imports: the schema's references (fetched by the converter) and the known files
 * (`known-types.ts`). Two things are made to look as Confluent's `ProtobufSchema` sees a file:
 * - `map<K, V>` fields become `repeated <Name>Entry` fields with a nested entry message (as
 *   Confluent's `toMapEntry` names it), so every map is read and written one way.
 * - Message indexes count the messages of the main file as written, entry messages aside.
 */

import type { Field, MapField, Namespace, ReflectionObject, Root, Type } from 'protobufjs';
import protobuf from 'protobufjs';
import { DataError } from 'serverless-connect/connect';
import { KNOWN_FILES } from './known-types.js';
import { KEY_FIELD, toMapEntry, VALUE_FIELD } from './protobuf-data-options.js';

/** A parsed schema: its types and the way between message names and message indexes. */
export interface ParsedProto {
  /** The main file's package, or `null`. */
  readonly package: string | null;
  /** The full name of the message `indexes` designate. @throws DataError for unknown indexes. */
  messageName(indexes: readonly number[]): string;
  /** The message indexes of message `fullName` (Confluent's `toMessageIndexes`). */
  indexesOf(fullName: string): number[];
  /** The message type `fullName`. @throws DataError when there is none. */
  type(fullName: string): Type;
  /** The full name of the main file's first message. */
  readonly firstMessage: string;
  /**
   * Every message of the main file, nested ones included (the entry messages made for `map`
   * fields too: see {@link mapEntries}), by full name, in declaration order.
   */
  readonly allMessages: readonly string[];
  /** The full names of the entry messages made for `map<K, V>` fields. */
  readonly mapEntries: ReadonlySet<string>;
}

function fullNameOf(object: ReflectionObject): string {
  return object.fullName.replace(/^\./, '');
}

function messagesOf(namespace: Namespace | Type, synthetic: ReadonlySet<Type>): Type[] {
  return namespace.nestedArray.filter(
    (n): n is Type => n instanceof protobuf.Type && !synthetic.has(n),
  );
}

function parseFile(text: string, root: Root, name: string): protobuf.IParserResult {
  try {
    return protobuf.parse(text, root, { keepCase: true });
  } catch (error) {
    throw new DataError(`Invalid Protobuf schema ${name}: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/** The fields of `type` in the order the file declares them. */
const DECLARED_ORDER = new WeakMap<Type, readonly string[]>();

/** The fields of `type` as declared (a map field where it was, not where it was re-added). */
export function declaredFields(type: Type): Field[] {
  const order = DECLARED_ORDER.get(type);
  return order === undefined ? type.fieldsArray : order.map((name) => type.fields[name] as Field);
}

/** Replaces every `map<K, V>` field of `type` (and nested types) by repeated entry messages. */
function entriesForMaps(type: Type, synthetic: Set<Type>): void {
  const order = type.fieldsArray.map((f) => f.name);
  if (type.fieldsArray.some((f) => f.map)) DECLARED_ORDER.set(type, order);
  for (const field of [...type.fieldsArray]) {
    if (!field.map) continue;
    const map = field as unknown as MapField;
    const entry = new protobuf.Type(toMapEntry(map.name));
    entry.add(new protobuf.Field(KEY_FIELD, 1, map.keyType));
    entry.add(new protobuf.Field(VALUE_FIELD, 2, map.type));
    type.remove(map);
    type.add(entry);
    type.add(new protobuf.Field(map.name, map.id, entry.name, 'repeated'));
    synthetic.add(entry);
  }
}

function allTypes(namespace: Namespace): Type[] {
  const out: Type[] = [];
  for (const nested of namespace.nestedArray) {
    if (nested instanceof protobuf.Type) out.push(nested);
    if (nested instanceof protobuf.Namespace || nested instanceof protobuf.Type) {
      out.push(...allTypes(nested as Namespace));
    }
  }
  return out;
}

/**
 * Parses `main` and, recursively, the files it imports: from `dependencies` (import name →
 * text, the schema's references), else the known files; an import found in neither is left
 * out (a type it should define then fails to resolve).
 * @throws DataError for text that is not valid Protobuf or a type that does not resolve.
 */
export function parseProto(main: string, dependencies: ReadonlyMap<string, string>): ParsedProto {
  const root = new protobuf.Root();
  const parsed = parseFile(main, root, 'main');
  const pkg = parsed.package ?? null;
  const scope = pkg === null ? root : (root.lookup(pkg) as Namespace | null);
  const topLevel = scope === null ? [] : messagesOf(scope, new Set());
  const loaded = new Set<string>();
  const pending = [...(parsed.imports ?? []), ...(parsed.weakImports ?? [])];
  while (pending.length > 0) {
    const name = pending.shift() as string;
    if (loaded.has(name)) continue;
    loaded.add(name);
    const text = dependencies.get(name) ?? KNOWN_FILES.get(name);
    if (text === undefined) continue;
    const dep = parseFile(text, root, name);
    pending.push(...(dep.imports ?? []), ...(dep.weakImports ?? []));
  }
  const synthetic = new Set<Type>();
  for (const type of allTypes(root)) entriesForMaps(type, synthetic);
  try {
    root.resolveAll();
  } catch (error) {
    throw new DataError(`Invalid Protobuf schema: ${(error as Error).message}`, { cause: error });
  }
  const first = topLevel[0];
  if (first === undefined) throw new DataError('The Protobuf schema defines no message');
  const allMessages: string[] = [];
  const walk = (types: readonly Type[]) => {
    for (const type of types) {
      allMessages.push(fullNameOf(type));
      walk(type.nestedArray.filter((n): n is Type => n instanceof protobuf.Type));
    }
  };
  walk(topLevel);
  return {
    package: pkg,
    firstMessage: fullNameOf(first),
    allMessages,
    mapEntries: new Set([...synthetic].map(fullNameOf)),
    messageName(indexes) {
      let types = topLevel;
      let found: Type | undefined;
      for (const index of indexes) {
        found = types[index];
        if (found === undefined) {
          throw new DataError(
            `Invalid message indexes [${indexes.join(', ')}]: the schema has no such message`,
          );
        }
        types = messagesOf(found, synthetic);
      }
      return fullNameOf(found ?? first);
    },
    indexesOf(fullName) {
      const local =
        pkg !== null && fullName.startsWith(`${pkg}.`) ? fullName.slice(pkg.length + 1) : fullName;
      const indexes: number[] = [];
      let types = topLevel;
      for (const part of local.split('.')) {
        const index = types.findIndex((t) => t.name === part);
        if (index < 0) continue;
        indexes.push(index);
        types = messagesOf(types[index] as Type, synthetic);
      }
      return indexes;
    },
    type(fullName) {
      const found = root.lookup(fullName);
      if (!(found instanceof protobuf.Type)) {
        throw new DataError(`The Protobuf schema has no message ${fullName}`);
      }
      return found;
    },
  };
}
