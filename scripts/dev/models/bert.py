"""bert: transformers BertModel, tiny random config (hidden 32, 2 layers, 4 heads, vocab 100); returns last_hidden_state."""
import torch
import transformers


class Wrap(torch.nn.Module):
    def __init__(self):
        super().__init__()
        cfg = transformers.BertConfig(vocab_size=100, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                                      intermediate_size=64, max_position_embeddings=64)
        self.m = transformers.BertModel(cfg)

    def forward(self, input_ids, attention_mask):
        return self.m(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state


def make_model():
    torch.manual_seed(0)
    return Wrap().eval()


def example_inputs():
    g = torch.Generator().manual_seed(1)
    ids = torch.randint(0, 100, (2, 8), generator=g)
    mask = torch.ones(2, 8, dtype=torch.int64)
    mask[1, 6:] = 0
    return (ids, mask)
