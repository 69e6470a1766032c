/** /api/users and /api/permissions (and a vhost's, /api/vhosts/:vhost/permissions): the spec's user and permission administration (admin only). */
import { actorOf } from "../request-actor.js";
import type { FastifyInstance } from "fastify";
import { isHashingAlgorithm, type HashingAlgorithm } from "../../auth/password.js";
import { parseTags } from "../../auth/user.js";
import { requireAdministrator } from "../http-auth.js";
import { badRequest, objectNotFound } from "../http-errors.js";
import { listResponse } from "../list-query.js";
import { permissionRecord, userRecord } from "../records.js";
import { objectBody, reqString, requireKeys } from "../request-body.js";
import { badRequestTerm } from "../../errors/broker-error.js";
import { created, noContent, resource, type Request, type RouteContext } from "../route-table.js";

export function registerUsers(app: FastifyInstance, ctx: RouteContext): void {
  const b = ctx.broker;
  resource(app, ctx, "/api/users", {
    GET: ({ caller, query }) => {
      requireAdministrator(caller);
      return listResponse(b.users.list().map(userRecord), query, ["name"]);
    },
  });
  // Registered before /api/users/:name so these names are not taken for user names.
  resource(app, ctx, "/api/users/without-permissions", {
    GET: ({ caller }) => {
      requireAdministrator(caller);
      return b.users.list().filter((u) => u.isInternal && b.users.permissionsOfUser(u.name).length === 0).map(userRecord);
    },
  });
  resource(app, ctx, "/api/users/bulk-delete", {
    // All or nothing: an unknown name refuses the whole request before any user is deleted.
    POST: (req) => {
      const { caller, body } = req;
      requireAdministrator(caller);
      const o = objectBody(body);
      requireKeys(o, ["users"]);
      const names = o["users"];
      if (!Array.isArray(names) || names.some((n) => typeof n !== "string")) throw badRequest("'users' must be an array of user names");
      const missing = (names as string[]).find((n) => !b.users.get(n));
      if (missing !== undefined) throw badRequestTerm("no_such_user", missing);
      for (const n of new Set(names as string[])) b.deleteUser(n, actorOf(req));
      return noContent();
    },
  });
  resource(app, ctx, "/api/users/:name", {
    GET: ({ caller, params }) => {
      requireAdministrator(caller);
      const u = b.users.get(params["name"]!);
      if (!u) throw objectNotFound();
      return userRecord(u);
    },
    PUT: (req) => {
      const { caller, params, body } = req;
      requireAdministrator(caller);
      const o = objectBody(body);
      if (o["tags"] === undefined) throw badRequest("tags_not_present");
      const tags = parseTags(o["tags"]);
      if (tags === null) throw badRequest("'tags' must be a comma-separated string or an array of strings");
      if (o["password"] !== undefined && o["password_hash"] !== undefined) throw badRequest("both_password_and_password_hash_are_provided");
      const algorithm = o["hashing_algorithm"];
      if (algorithm !== undefined && (typeof algorithm !== "string" || !isHashingAlgorithm(algorithm))) {
        throw badRequest(`unknown hashing_algorithm ${JSON.stringify(algorithm)}`);
      }
      const isNew = b.putUser(params["name"]!, {
        tags,
        ...(o["password"] !== undefined ? { password: reqString(o, "password") } : {}),
        ...(o["password_hash"] !== undefined ? { passwordHash: reqString(o, "password_hash") } : {}),
        ...(algorithm !== undefined ? { hashingAlgorithm: algorithm as HashingAlgorithm } : {}),
      }, actorOf(req));
      return isNew ? created() : noContent();
    },
    DELETE: (req) => {
      requireAdministrator(req.caller);
      b.deleteUser(req.params["name"]!, actorOf(req));
      return noContent();
    },
  });
  resource(app, ctx, "/api/users/:name/permissions", {
    GET: ({ caller, params }) => {
      requireAdministrator(caller);
      if (!b.users.get(params["name"]!)) throw objectNotFound();
      return b.users.permissionsOfUser(params["name"]!).map(permissionRecord);
    },
  });
  resource(app, ctx, "/api/permissions", {
    GET: ({ caller }) => {
      requireAdministrator(caller);
      return b.users.allPermissions().map(permissionRecord);
    },
  });
  // A vhost's permissions: RabbitMQ answers the same at both paths.
  const vhostPermissions = {
    GET: ({ caller, params }: Request) => {
      requireAdministrator(caller);
      if (!b.vhosts.has(params["vhost"]!)) throw objectNotFound();
      return b.users.permissionsOfVhost(params["vhost"]!).map(permissionRecord);
    },
  };
  resource(app, ctx, "/api/permissions/:vhost", vhostPermissions);
  resource(app, ctx, "/api/vhosts/:vhost/permissions", vhostPermissions);
  resource(app, ctx, "/api/permissions/:vhost/:user", {
    GET: ({ caller, params }) => {
      requireAdministrator(caller);
      const p = b.users.permission(params["user"]!, params["vhost"]!);
      if (!p) throw objectNotFound();
      return permissionRecord(p);
    },
    // The spec: PUT and DELETE of a permission answer 204.
    PUT: (req) => {
      const { caller, params, body } = req;
      requireAdministrator(caller);
      const o = objectBody(body);
      for (const k of ["configure", "write", "read"]) if (o[k] === undefined) throw badRequest(`[{key_missing,${k}}]`);
      b.setPermission(params["user"]!, params["vhost"]!, { configure: reqString(o, "configure"), write: reqString(o, "write"), read: reqString(o, "read") }, actorOf(req));
      return noContent();
    },
    DELETE: (req) => {
      requireAdministrator(req.caller);
      b.clearPermission(req.params["user"]!, req.params["vhost"]!, actorOf(req));
      return noContent();
    },
  });
}
