"""The goal-conditioned pointer network: encodes page elements, value slots and the goal,
and scores *actions by content* (an element row, a value slot) rather than by position.

Framework-free torch: `PointerNet(obs) -> (PointerOutput)` on a dict of batched tensors
shaped like `WebTask-v0`'s `tokens` observation. SB3 (`policies.sb3`) and BC (`policies.bc`)
wrap it.

Per element: word, tag and role embeddings, flags and box, the words of its context
(its entry, its label, its part of the page's title: `observation.CONTEXT_PARTS`), plus
content features: the share of its words that appear in the goal, the best share of a value
slot's words it shows, the same two for each part of its context (the "8720" labelled
"Reputation" when the goal asks for a reputation; the "Log out" in the row that shows the
device the goal names), how specific its goal words are on this page (and its neighbours'
in page order), and its rank among the rows of its role (all, those showing goal
words, and those of its kind: the same tag and label, as each card's price is).
Elements are modulated by the goal (FiLM), mixed by one self-attention layer, and pooled
by attention with the goal as query into a context vector. Slots: their words and the
goal words around where they appear in the goal. The action is factored as
p(verb) · p(element | verb) · p(slot | verb, element): element and slot logits come from
each row's own vector, so the chosen row follows its content wherever it is on the page.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from webfactory_env.actions import VERB_INDEX, VERBS
from webfactory_env.observation import CONTEXT_PARTS, FLAG_COLUMNS, ROLES, TAGS
from webfactory_env.observation.goal import TASK_IDS

N_VERBS = len(VERBS)
SLOT_VERBS = (VERB_INDEX["type"], VERB_INDEX["select"])
# Verbs that point at an element: the element verbs, and done (an answer points at what
# shows it). Scroll and back take no element.
POINTING = tuple(
    VERB_INDEX[v]
    for v in ("click", "type", "select", "submit", "press_enter", "done_success", "done_fail")
)
NEG = -1e8
N_CONTEXT = len(CONTEXT_PARTS)
LABEL_PART = CONTEXT_PARTS.index("label")


@dataclass(frozen=True)
class PointerConfig:
    """Sizes of the network. `vocab_size` must match the env's."""

    vocab_size: int = 4096
    dim: int = 64
    heads: int = 4
    task_embedding: bool = True


@dataclass
class PointerOutput:
    """Log-probabilities of the factored action, and the context for the value."""

    verb: torch.Tensor  # (B, V) log p(verb)
    element: torch.Tensor  # (B, N, V) log p(element | verb), over real elements
    slot: torch.Tensor  # (B, N, S) log p(slot | type/select on element), over real slots
    context: torch.Tensor  # (B, D)

    def multidiscrete_logits(self) -> torch.Tensor:
        """(B, V + N + S): per-dimension logits (verb, marginal element, slot)."""
        pointing = list(POINTING)
        joint = self.verb[:, None, pointing] + self.element[:, :, pointing]
        element = torch.logsumexp(joint, dim=-1)
        slot = torch.logsumexp(element[:, :, None] + self.slot, dim=1)
        return torch.cat([self.verb, element, slot], dim=-1)

    def menu_logits(self, menu: torch.Tensor) -> torch.Tensor:
        """(B, M): log p of each (verb, element, slot) row of the discrete mode's menu;
        padding rows (verb -1) get a large negative logit."""
        menu = menu.long()
        verb = menu[..., 0].clamp(min=0)
        element = menu[..., 1]
        slot = menu[..., 2].clamp(min=0)
        has_el = element >= 0
        el = element.clamp(min=0)
        out = torch.gather(self.verb, 1, verb)
        el_lp = self.element.gather(1, el[..., None].expand(-1, -1, N_VERBS))
        el_lp = el_lp.gather(2, verb[..., None]).squeeze(-1)
        pointing = torch.zeros(N_VERBS, dtype=torch.bool, device=menu.device)
        pointing[list(POINTING)] = True
        out = out + torch.where(has_el & pointing[verb], el_lp, torch.zeros_like(el_lp))
        slot_rows = self.slot.gather(1, el[..., None].expand(-1, -1, self.slot.shape[-1]))
        sl_lp = slot_rows.gather(2, slot[..., None]).squeeze(-1)
        uses = (verb == SLOT_VERBS[0]) | (verb == SLOT_VERBS[1])
        out = out + torch.where(uses, sl_lp, torch.zeros_like(sl_lp))
        return torch.where(menu[..., 0] >= 0, out, torch.full_like(out, NEG))

    def log_prob_triples(self, actions: torch.Tensor) -> torch.Tensor:
        """(B,): log p of multidiscrete actions [verb, element, slot] under the factored
        model (what behaviour cloning maximises)."""
        return self.menu_logits(_as_rows(actions))[:, 0]


def _as_rows(actions: torch.Tensor) -> torch.Tensor:
    """Multidiscrete actions as one-row menus; scroll/back point at no element."""
    rows = actions.long().clone()
    pointing = torch.zeros(N_VERBS, dtype=torch.bool, device=rows.device)
    pointing[list(POINTING)] = True
    rows[:, 1] = torch.where(pointing[rows[:, 0]], rows[:, 1], torch.full_like(rows[:, 1], -1))
    return rows[:, None, :]


def _matches(
    words: torch.Tensor, goal_bag: torch.Tensor, slot_bag: torch.Tensor, slot_on: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """For word ids `words` (B, N, K): which are goal words (B, N, K), the share of each
    row's words in the goal (B, N), and the best share of a slot's words it shows (B, N)."""
    b, n = words.shape[:2]
    on = words > 0
    in_goal = goal_bag.gather(1, words.reshape(b, -1)).reshape(words.shape)
    goal_share = in_goal.float().sum(-1) / on.float().sum(-1).clamp(min=1)
    s_count = slot_bag.shape[1]
    if not s_count:
        return in_goal, goal_share, goal_share * 0
    flat = words.reshape(b, 1, -1).expand(-1, s_count, -1)
    shown = slot_bag.gather(2, flat).reshape(b, s_count, n, -1).float().sum(-1)
    slot_share = shown / slot_on.float().sum(-1)[..., None].clamp(min=1)  # (B, S, N)
    return in_goal, goal_share, slot_share.max(1).values.clamp(max=1.0)


def page_order(
    role: torch.Tensor,
    tag: torch.Tensor,
    label: torch.Tensor,
    real: torch.Tensor,
    goal_share: torch.Tensor,
) -> torch.Tensor:
    """Order on the page, by content, as (B, N, 3): 1 / (1 + how many rows before this one
    have its role), the same among rows showing goal words ("the first mug listed"), and
    among rows of its kind: its role, tag and label words (`label`, (B, N, K)) — each
    card's price, a table column's cells — so a list's first price is first however many
    other texts each card shows ("the cheapest fare" after sorting by price)."""
    n = role.shape[1]
    role, tag = role.long(), tag.long()
    same = (role[:, :, None] == role[:, None, :]) & real.bool()[:, None, :]  # (B, N, N)
    before = torch.ones(n, n, device=role.device).tril(-1).bool()[None]
    matches = (goal_share > 0)[:, None, :]
    label_key = _row_key(label.long())  # (B, N): equal for equal label words
    kind = same & (tag[:, :, None] == tag[:, None, :])
    kind &= label_key[:, :, None] == label_key[:, None, :]
    rank_all = (same & before).float().sum(-1)
    rank_goal = (same & before & matches).float().sum(-1)
    rank_kind = (kind & before).float().sum(-1)
    shown = (goal_share > 0).float()
    return torch.stack([1 / (1 + rank_all), shown / (1 + rank_goal), 1 / (1 + rank_kind)], -1)


def _row_key(ids: torch.Tensor) -> torch.Tensor:
    """One integer per row of word ids (..., K), equal for equal rows (a polynomial hash in
    int64 arithmetic: wrapping is fine, only equality is asked)."""
    k = ids.shape[-1]
    weights = torch.tensor([pow(1_000_003, i, 2**61 - 1) for i in range(k)], device=ids.device)
    return (ids * weights).sum(-1)


def _masked_mean(x: torch.Tensor, mask: torch.Tensor, dim: int) -> torch.Tensor:
    m = mask.to(x.dtype).unsqueeze(-1)
    return (x * m).sum(dim) / m.sum(dim).clamp(min=1.0)


class PointerNet(nn.Module):
    """See the module docstring. Input: a dict with `tag`, `role`, `text`, `bbox`,
    `flags`, `mask`, `context`, `goal`, `slots`, `task_id` (batched; floats or ints)."""

    def __init__(self, config: PointerConfig = PointerConfig()) -> None:
        super().__init__()
        d = config.dim
        self.config = config
        self.words = nn.Embedding(config.vocab_size, d, padding_idx=0)
        self.tags = nn.Embedding(len(TAGS), d)
        self.roles = nn.Embedding(len(ROLES), d)
        self.tasks = nn.Embedding(TASK_IDS, d) if config.task_embedding else None
        self.goal_pos = nn.Embedding(1024, d)
        self.element_in = nn.Sequential(
            nn.Linear((3 + N_CONTEXT) * d + len(FLAG_COLUMNS) + 4 + 7 + 2 * N_CONTEXT, 2 * d),
            nn.ReLU(),
            nn.Linear(2 * d, d),
        )
        self.goal_in = nn.Sequential(nn.Linear(2 * d, d), nn.ReLU(), nn.Linear(d, d))
        self.film = nn.Linear(d, 2 * d)
        self.mix = nn.MultiheadAttention(d, config.heads, batch_first=True)
        self.mix_norm = nn.LayerNorm(d)
        self.pool_query = nn.Linear(d, d)
        self.context = nn.Sequential(nn.Linear(2 * d, d), nn.ReLU(), nn.Linear(d, d), nn.ReLU())
        self.slot_in = nn.Sequential(nn.Linear(2 * d, d), nn.ReLU(), nn.Linear(d, d))
        self.verb_head = nn.Linear(d, N_VERBS)
        self.element_head = nn.Sequential(nn.Linear(2 * d, d), nn.ReLU(), nn.Linear(d, N_VERBS))
        self.slot_head = nn.Sequential(nn.Linear(2 * d, d), nn.ReLU(), nn.Linear(d, 1))
        self.pair = nn.Linear(d, d, bias=False)

    def forward(self, obs: dict[str, torch.Tensor]) -> PointerOutput:
        text = obs["text"].long()  # (B, N, K)
        goal = obs["goal"].long()  # (B, G)
        slots = obs["slots"].long()  # (B, S, K)
        real = obs["mask"].bool()  # (B, N)
        b, n, _ = text.shape
        d = self.config.dim

        # Content matches, by word id: which element words are goal words, and how much
        # of each slot's string an element shows (bags of word ids, gathered per word);
        # the same for the words of each part of its context.
        context = obs["context"].long()  # (B, N, C, K)
        words_on = text > 0
        vocab = self.config.vocab_size
        goal_bag = torch.zeros(b, vocab, dtype=torch.bool, device=text.device)
        goal_bag.scatter_(1, goal, True)
        goal_bag[:, 0] = False
        slot_on = slots > 0  # (B, S, K)
        slot_bag = torch.zeros(b, slots.shape[1], vocab, dtype=torch.bool, device=text.device)
        slot_bag.scatter_(2, slots, True)
        slot_bag[:, :, 0] = False
        in_goal, goal_share, best_slot = _matches(text, goal_bag, slot_bag, slot_on)
        context_matches = [
            torch.stack(_matches(context[:, :, c], goal_bag, slot_bag, slot_on)[1:], -1)
            for c in range(N_CONTEXT)
        ]

        # How specific an element's goal words are (1 / how many words on the page are
        # that word): "Denver" once beats "trip" on every card; and the same for its
        # neighbours in page order (the reference shown next to the goal's city).
        page_count = torch.zeros(b, vocab, device=text.device)
        page_count.scatter_add_(1, text.reshape(b, -1), words_on.reshape(b, -1).float())
        counts = page_count.gather(1, text.reshape(b, -1)).reshape(text.shape).clamp(min=1)
        specific = (in_goal.float() / counts).max(-1).values  # (B, N)
        padded = F.pad(specific, (3, 3))
        near = (
            torch.stack(
                [padded[:, 3 + o : 3 + o + n] * (1 - abs(o) / 4) for o in (-3, -2, -1, 1, 2, 3)], -1
            )
            .max(-1)
            .values
        )

        order = page_order(obs["role"], obs["tag"], context[:, :, LABEL_PART], real, goal_share)

        word_vec = _masked_mean(self.words(text), words_on, 2)  # (B, N, D)
        context_vecs = [
            _masked_mean(self.words(context[:, :, c]), context[:, :, c] > 0, 2)
            for c in range(N_CONTEXT)
        ]
        feats = torch.cat(
            [
                word_vec,
                *context_vecs,
                *context_matches,
                self.tags(obs["tag"].long()),
                self.roles(obs["role"].long()),
                obs["flags"].float(),
                obs["bbox"].float(),
                goal_share[..., None],
                best_slot[..., None],
                order,
                specific[..., None],
                near[..., None],
            ],
            -1,
        )
        elems = self.element_in(feats)

        # The goal: its words with their positions, and the task.
        goal_on = goal > 0
        pos = torch.arange(goal.shape[1], device=goal.device).clamp(max=1023)
        goal_words = self.words(goal) + self.goal_pos(pos)[None]
        g = _masked_mean(goal_words, goal_on, 1)
        task = (
            self.tasks(obs["task_id"].long().reshape(b, -1)[:, 0])
            if self.tasks is not None
            else torch.zeros_like(g)
        )
        q = self.goal_in(torch.cat([g, task], -1))  # (B, D)

        scale, shift = self.film(q).chunk(2, -1)
        elems = elems * (1 + scale[:, None]) + shift[:, None]
        pad = ~real
        pad_all = pad.all(-1, keepdim=True)
        safe_pad = pad & ~pad_all  # a page with no element attends to its padding
        mixed, _ = self.mix(elems, elems, elems, key_padding_mask=safe_pad)
        elems = self.mix_norm(elems + mixed)
        att = (elems @ self.pool_query(q)[..., None]).squeeze(-1) / d**0.5
        att = att.masked_fill(safe_pad, NEG).softmax(-1)
        pooled = (att[..., None] * elems).sum(1)
        ctx = self.context(torch.cat([pooled, q], -1))  # (B, D)

        # Slots: their words and the goal words around where they occur in the goal.
        slot_vec = _masked_mean(self.words(slots), slot_on, 2)  # (B, S, D)
        hit = (
            (
                (slots[:, :, :, None] == goal[:, None, None, :])
                & slot_on[..., None]
                & goal_on[:, None, None]
            )
            .any(2)
            .float()
        )  # (B, S, G)
        near = F.max_pool1d(hit.reshape(-1, 1, hit.shape[-1]), 9, stride=1, padding=4)
        near = near.reshape(hit.shape) * goal_on[:, None].float()
        around = (near @ goal_words) / near.sum(-1, keepdim=True).clamp(min=1)
        slot_vec = self.slot_in(torch.cat([slot_vec, around], -1))
        slot_real = slot_on.any(-1)  # (B, S)

        verb = self.verb_head(ctx).log_softmax(-1)
        el_logits = self.element_head(torch.cat([elems, ctx[:, None].expand(-1, n, -1)], -1))
        el_logits = el_logits.masked_fill(pad[..., None], NEG)
        element = el_logits.log_softmax(1)
        s = slots.shape[1]
        sl = self.slot_head(torch.cat([slot_vec, ctx[:, None].expand(-1, s, -1)], -1))
        pair = (self.pair(elems) @ slot_vec.transpose(1, 2)) / d**0.5  # (B, N, S)
        sl_logits = (sl.transpose(1, 2) + pair).masked_fill(~slot_real[:, None], NEG)
        slot = sl_logits.log_softmax(-1)
        return PointerOutput(verb=verb, element=element, slot=slot, context=ctx)


def count_parameters(module: nn.Module) -> int:
    return sum(p.numel() for p in module.parameters())


def to_tensors(obs: dict[str, Any], device: str = "cpu") -> dict[str, torch.Tensor]:
    """A (batched) numpy observation dict as tensors."""
    return {k: torch.as_tensor(v, device=device) for k, v in obs.items()}
