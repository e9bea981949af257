"""deberta_v2: transformers DebertaV2Model, tiny random config (hidden 32, 2 layers, 4 heads, relative attention with position buckets, vocab 100); returns last_hidden_state."""
import torch
import transformers


class Wrap(torch.nn.Module):
    def __init__(self):
        super().__init__()
        cfg = transformers.DebertaV2Config(vocab_size=100, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                                           intermediate_size=64, max_position_embeddings=64, relative_attention=True,
                                           position_buckets=8, max_relative_positions=16, pos_att_type=["p2c", "c2p"],
                                           norm_rel_ebd="layer_norm", share_att_key=True, position_biased_input=False)
        self.m = transformers.DebertaV2Model(cfg)

    def forward(self, input_ids):
        return self.m(input_ids=input_ids).last_hidden_state


def make_model():
    torch.manual_seed(0)
    return Wrap().eval()


def example_inputs():
    g = torch.Generator().manual_seed(1)
    return (torch.randint(0, 100, (2, 8), generator=g),)
