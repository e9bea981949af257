"""gpt2: transformers GPT2LMHeadModel, tiny random config (n_embd 32, 2 layers, 4 heads, vocab 100), no cache; returns logits."""
import torch
import transformers


class Wrap(torch.nn.Module):
    def __init__(self):
        super().__init__()
        cfg = transformers.GPT2Config(vocab_size=100, n_positions=64, n_embd=32, n_layer=2, n_head=4, use_cache=False)
        self.m = transformers.GPT2LMHeadModel(cfg)

    def forward(self, input_ids):
        return self.m(input_ids=input_ids, use_cache=False).logits


def make_model():
    torch.manual_seed(0)
    return Wrap().eval()


def example_inputs():
    g = torch.Generator().manual_seed(1)
    return (torch.randint(0, 100, (2, 8), generator=g),)
