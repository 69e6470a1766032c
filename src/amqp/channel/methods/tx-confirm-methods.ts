/**
 * tx.* and confirm.select. A channel is in at most one of the two modes (RabbitMQ refuses to
 * switch). In tx mode publishes and settlements wait for tx.commit; rollback drops them.
 */
import {
  encodeConfirmSelectOk,
  encodeTxCommitOk,
  encodeTxRollbackOk,
  encodeTxSelectOk,
  MethodId,
} from "../../codec/generated.js";
import { BrokerError } from "../../../errors/broker-error.js";
import { ConfirmTracker, TX_COMMIT_TOKEN } from "../confirm-tracker.js";
import { route } from "../publishing.js";
import { on, type HandlerTable } from "./handler.js";

const notTransactional = (): BrokerError => new BrokerError("preconditionFailed", "channel is not transactional");

export const txAndConfirmHandlers: HandlerTable = [
  on(MethodId.ConfirmSelect, (ch, a) => {
    if (ch.tx) throw new BrokerError("preconditionFailed", "cannot switch from tx to confirm mode");
    ch.confirm ??= new ConfirmTracker();
    if (!a.nowait) encodeConfirmSelectOk(ch.output.out, ch.number, {});
  }),
  on(MethodId.TxSelect, (ch) => {
    if (ch.confirm) throw new BrokerError("preconditionFailed", "cannot switch from confirm to tx mode");
    ch.tx ??= { publishes: [], settlements: [] };
    encodeTxSelectOk(ch.output.out, ch.number, {});
  }),
  on(MethodId.TxCommit, (ch) => {
    const tx = ch.tx;
    if (!tx) throw notTransactional();
    const { publishes, settlements } = tx;
    tx.publishes = [];
    tx.settlements = [];
    // Route with the transaction lifted, so route() publishes instead of buffering again.
    ch.tx = null;
    let stored = false;
    try {
      for (const p of publishes) if (route(ch, p.exchange, p.message, p.mandatory)) stored = true;
      for (const s of settlements) s();
    } finally {
      ch.tx = tx;
    }
    // commit-ok means the persistent messages are on disk (AMQP tx: committed work is durable).
    if (stored) ch.host.broker.whenStored(ch, TX_COMMIT_TOKEN);
    else encodeTxCommitOk(ch.output.out, ch.number, {});
  }),
  on(MethodId.TxRollback, (ch) => {
    const tx = ch.tx;
    if (!tx) throw notTransactional();
    tx.publishes = [];
    tx.settlements = [];
    encodeTxRollbackOk(ch.output.out, ch.number, {});
  }),
];
