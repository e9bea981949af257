"""llama: transformers LlamaForCausalLM, tiny random config (hidden 32, 2 layers, 4 heads / 2 kv heads, vocab 100), no cache; returns logits."""
import torch
import transformers


class Wrap(torch.nn.Module):
    def __init__(self):
        super().__init__()
        cfg = transformers.LlamaConfig(vocab_size=100, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                       num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64,
                                       use_cache=False)
        self.m = transformers.LlamaForCausalLM(cfg)

    def forward(self, input_ids):
        return self.m(input_ids=input_ids, use_cache=False).logits


def make_model():
    torch.manual_seed(0)
    return Wrap().eval()


def example_inputs():
    g = torch.Generator().manual_seed(1)
    return (torch.randint(0, 100, (2, 8), generator=g),)
